/**
 * An OTLP/HTTP receiver for tests: a real HTTP server on a loopback port that accepts what an
 * OpenTelemetry exporter sends to /v1/traces and /v1/metrics (JSON, gzipped or not), keeps the
 * raw bodies (to search them for secrets) and decodes spans and metric points.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ReceivedExport {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body as sent, decompressed. */
  text: string;
}

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export interface ReceivedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  status: { code?: number };
  attributes: Record<string, AttributeValue>;
  resource: Record<string, AttributeValue>;
}

export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, AttributeValue>;
  count: number;
  sum: number;
  explicitBounds: number[];
}

/** OTLP span kinds (the JSON encoding numbers them). */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
export const STATUS_ERROR = 2;

interface WireAttribute {
  key: string;
  value: WireValue;
}
interface WireValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: WireValue[] };
}

export class OtlpReceiver {
  private constructor(
    private readonly server: http.Server,
    /** Every request, in the order received. */
    readonly exports: ReceivedExport[],
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const received: ReceivedExport[] = [];
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        received.push({ path: request.url ?? '', headers: request.headers, text: body.toString('utf8') });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    const receiver = new OtlpReceiver(server, received);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Everything received, as one text: where a secret must not be. */
  get allText(): string {
    return this.exports.map((received) => `${JSON.stringify(received.headers)}\n${received.text}`).join('\n');
  }

  get spans(): ReceivedSpan[] {
    const spans: ReceivedSpan[] = [];
    for (const received of this.exports.filter((entry) => entry.path === '/v1/traces')) {
      const body = JSON.parse(received.text) as {
        resourceSpans?: Array<{
          resource?: { attributes?: WireAttribute[] };
          scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
        }>;
      };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              name: span.name as string,
              kind: span.kind as number,
              traceId: span.traceId as string,
              spanId: span.spanId as string,
              parentSpanId: (span.parentSpanId as string | undefined) ?? '',
              startTimeUnixNano: BigInt(span.startTimeUnixNano as string),
              endTimeUnixNano: BigInt(span.endTimeUnixNano as string),
              status: (span.status as { code?: number } | undefined) ?? {},
              attributes: attributesOf(span.attributes as WireAttribute[] | undefined),
              resource,
            });
      }
    }
    return spans;
  }

  /** Histogram points of every metrics export (cumulative: later exports repeat earlier points). */
  get points(): ReceivedPoint[] {
    const points: ReceivedPoint[] = [];
    for (const received of this.exports.filter((entry) => entry.path === '/v1/metrics')) {
      const body = JSON.parse(received.text) as {
        resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<Record<string, unknown>> }> }>;
      };
      for (const resourceMetrics of body.resourceMetrics ?? [])
        for (const scope of resourceMetrics.scopeMetrics ?? [])
          for (const metric of scope.metrics ?? []) {
            const histogram = metric.histogram as { dataPoints?: Array<Record<string, unknown>> } | undefined;
            for (const point of histogram?.dataPoints ?? [])
              points.push({
                metric: metric.name as string,
                unit: (metric.unit as string | undefined) ?? '',
                attributes: attributesOf(point.attributes as WireAttribute[] | undefined),
                count: Number(point.count),
                sum: Number(point.sum),
                explicitBounds: (point.explicitBounds as number[] | undefined) ?? [],
              });
          }
    }
    return points;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function attributesOf(attributes: WireAttribute[] | undefined): Record<string, AttributeValue> {
  const result: Record<string, AttributeValue> = {};
  for (const attribute of attributes ?? []) result[attribute.key] = valueOf(attribute.value);
  return result;
}

function valueOf(value: WireValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
