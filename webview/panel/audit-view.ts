/**
 * The developer panel's Audit Log tab: the audit trail of this conversation or of every one,
 * filtered by kind, each record expandable to its full JSON; Export JSONL / CSV ask the host to
 * save the whole scope. Records come from the host when the tab is opened, refreshed, or a run ends.
 */
import type { AuditRecordMessage, AuditScope } from '../../src/protocol/messages';
import { describeAuditRecord } from './audit-format';
import { collapsible, el, emptyNote, pre } from './dom';
import { formatJson, formatTime } from './panel-format';

export interface AuditElements {
  list: HTMLElement;
  count: HTMLElement;
  counter: HTMLElement;
}

export class AuditView {
  private records: AuditRecordMessage[] = [];
  private total = 0;
  private kind = '';

  constructor(private readonly elements: AuditElements) {}

  show(records: AuditRecordMessage[], total: number): void {
    this.records = records;
    this.total = total;
    this.elements.counter.textContent = String(total);
    this.render();
  }

  setKind(kind: string): void {
    this.kind = kind;
    this.render();
  }

  private render(): void {
    const shown = this.kind ? this.records.filter((record) => record.kind === this.kind) : this.records;
    const older = this.total - this.records.length;
    this.elements.count.textContent =
      `${shown.length} record(s)` + (older > 0 ? `; ${older} older ones are in the export` : '');
    if (shown.length === 0) {
      this.elements.list.replaceChildren(emptyNote('No audit records yet.'));
      return;
    }
    // Newest first: what just happened is on top.
    this.elements.list.replaceChildren(
      ...shown
        .slice()
        .reverse()
        .map((record) => {
          const row = describeAuditRecord(record);
          const summary = [
            el('span', 'muted audit-time', formatTime(record.time)),
            el('span', `audit-kind kind-${record.kind}`, record.kind),
            el('span', 'muted', row.agent),
            el('span', 'audit-what', row.what),
            ...(row.decision ? [el('span', 'audit-decision', row.decision)] : []),
            ...(row.figures ? [el('span', 'muted audit-figures', row.figures)] : []),
          ];
          const block = collapsible('audit-record', summary, () => [pre('json', formatJson(record))]);
          block.dataset.kind = record.kind;
          return block;
        }),
    );
  }
}

export type { AuditScope };
