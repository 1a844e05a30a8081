/**
 * The editor's notifications, standing in for `vscode` (as in test/adversarial/always-approvals):
 * the real NotificationApprovalGate is loaded with this stand-in, so its own VS Code adapter is
 * what runs. Each notification is recorded and stays open until the test answers it — a click
 * on a button, its × (undefined) — as a notification that hid in the notification center does.
 */
import Module from 'node:module';
import type {
  NotificationApprovalGate as Gate,
  NotificationGateOptions,
} from '../../../../src/host/approvals/notification-approval-gate';
import type { ApprovalRequest } from '../../../../src/core/policy/approval';

export interface Shown {
  text: string;
  buttons: string[];
  modal: boolean;
  /** Whether it was answered (a button or ×). */
  answered: boolean;
  /** Clicks a button (or closes it with undefined). */
  answer(choice: string | undefined): void;
}

export class NotificationDouble {
  readonly shown: Shown[] = [];
  /** Set: modal questions are refused as VS Code's extension-test mode refuses them. */
  refuseModals = false;
  private readonly waiters: Array<() => void> = [];

  readonly standIn = {
    window: {
      showInformationMessage: (text: string, ...rest: unknown[]) => this.question(text, rest),
      showWarningMessage: (text: string, ...rest: unknown[]) => this.question(text, rest),
    },
  };

  /** Open (unanswered) notifications whose text matches. */
  open(pattern?: RegExp): Shown[] {
    return this.shown.filter((shown) => !shown.answered && (!pattern || pattern.test(shown.text)));
  }

  /** Resolves once `count` notifications have been shown (no deadline of its own: mocha's). */
  async until(count: number): Promise<void> {
    while (this.shown.length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private question(text: string, rest: unknown[]): Promise<string | undefined> {
    const options = typeof rest[0] === 'object' ? (rest.shift() as { modal?: boolean }) : {};
    if (options.modal && this.refuseModals)
      return Promise.reject(new Error(`DialogService: refused to show dialog in tests. (${text})`));
    return new Promise((resolve) => {
      const shown: Shown = {
        text,
        buttons: rest as string[],
        modal: options.modal === true,
        answered: false,
        answer: (choice) => {
          shown.answered = true;
          resolve(choice);
        },
      };
      this.shown.push(shown);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }
}

/** The real gate, its `vscode` the double's stand-in. */
export function gateWith(double: NotificationDouble, options: NotificationGateOptions = {}): Gate {
  const internals = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = internals._load;
  internals._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? double.standIn : load.call(this, request, ...rest);
  };
  // A fresh copy bound to this double, and none left cached for a test with another stand-in.
  const file = require.resolve('../../../../src/host/approvals/notification-approval-gate');
  delete require.cache[file];
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require(file) as {
      NotificationApprovalGate: new (options?: NotificationGateOptions) => Gate;
    };
    return new loaded.NotificationApprovalGate(options);
  } finally {
    internals._load = load;
    delete require.cache[file];
  }
}

/** An approval request for a plain write (or a protected one), with its own abort controller. */
export function writeRequest(
  id: string,
  options: { conversationId?: string; protectedPath?: boolean; controller?: AbortController } = {},
): ApprovalRequest & { controller: AbortController } {
  const controller = options.controller ?? new AbortController();
  return {
    conversationId: options.conversationId ?? 'conversation',
    toolCallId: id,
    toolName: 'write_file',
    input: { path: `${id}.md`, content: 'x' },
    summary: `Write ${id}.md`,
    argumentsHash: `hash-${id}`,
    risk: {
      reasons: [],
      cautions: [],
      protectedPath: options.protectedPath === true,
      needsOut: [],
      needsNetwork: [],
    },
    signal: controller.signal,
    controller,
  };
}
