/**
 * The fake model server in a child process, so what a benchmark measures in this process is
 * the client side alone (the server's own work neither adds to nor hides behind it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';

export class RemoteFakeServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<RemoteFakeServer> {
    const entry = path.resolve(__dirname, '..', 'fixtures', 'fake-model-server', 'server.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', entry], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (data: Buffer) => {
        output += data.toString();
        const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`fake server exited with ${code}`)));
    });
    return new RemoteFakeServer(child, port);
  }

  get anthropicBaseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get openAiBaseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async setScenario(scenario: ScenarioInput): Promise<void> {
    const response = await fetch(`${this.anthropicBaseUrl}/__scenario`, {
      method: 'POST',
      body: JSON.stringify(scenario),
      headers: { 'content-type': 'application/json' },
    });
    if (!response.ok) throw new Error(`could not set the scenario: ${await response.text()}`);
  }

  async requestBodies(): Promise<Array<Record<string, unknown>>> {
    const requests = (await (await fetch(`${this.anthropicBaseUrl}/__requests`)).json()) as Array<{
      protocol: string;
      body: Record<string, unknown>;
    }>;
    return requests
      .filter((request) => request.protocol === 'anthropic' || request.protocol === 'openai')
      .map((request) => request.body);
  }

  async clearRequests(): Promise<void> {
    await fetch(`${this.anthropicBaseUrl}/__requests`, { method: 'DELETE' });
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}
