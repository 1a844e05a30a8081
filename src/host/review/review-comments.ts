/**
 * Review comments on the agent's changes, in VS Code's comments UI (issue 36): the user comments
 * on a line or a selection of a file the agent changed — in the file, or on the modified side of
 * its "Open Diff" (the same file) — and "Send Comments to OpenAgent" (the thread's button, a lens
 * above the comments, the palette) sends them to the session whose changes they are on, as its
 * next message (queued while it works). The comments follow their lines as the file changes
 * (core/review/comment-book.ts), say when they are outdated, and go once their turn has ended.
 *
 * One comment per thread: a thread is the comment's place in the editor, with its state in the
 * thread's label and context value (the menus' `when` clauses read it).
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { CommentBook, Outgoing, ReviewComment } from '../../core/review/comment-book';
import { Disposable } from '../disposable';
import { commentTarget } from './comment-targets';
import type { SessionReviews } from './session-reviews';

export const COMMENT_CONTROLLER_ID = 'openagent-review';

export const REVIEW_COMMENT_COMMANDS = {
  add: 'openagent.addReviewComment',
  addAndSend: 'openagent.addReviewCommentAndSend',
  send: 'openagent.sendReviewComments',
  remove: 'openagent.deleteReviewComment',
} as const;

/** Sends a message to a session (queued while it works); a problem's words when it could not. */
export type SendToSession = (session: string, text: string) => Promise<{ problem?: string; queued?: boolean }>;

export class ReviewCommentController extends Disposable implements vscode.CodeLensProvider {
  private readonly controller: vscode.CommentController;
  /** Each comment's thread in the editor. */
  private readonly threads = new Map<number, vscode.CommentThread>();
  private readonly lensesChanged = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.lensesChanged.event;

  constructor(
    private readonly book: CommentBook,
    private readonly reviews: SessionReviews,
    private readonly sendTo: SendToSession,
  ) {
    super();
    this.controller = this._register(
      vscode.comments.createCommentController(COMMENT_CONTROLLER_ID, 'OpenAgent Review'),
    );
    this.controller.options = {
      prompt: 'Comment for OpenAgent…',
      placeHolder: 'What should the agent change here? Sent with the file, the lines and their code.',
    };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) => {
        if (document.uri.scheme !== 'file' || !commentTarget(this.reviews, document.uri.fsPath)) return [];
        return [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)];
      },
    };
    this._register(vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this));
    const stopBook = book.onDidChange(() => this.sync());
    this._register({ dispose: stopBook });
    this._register(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length === 0 || event.document.uri.scheme !== 'file') return;
        const absolute = event.document.uri.fsPath;
        if (this.book.of(absolute).length === 0) return;
        const changes = event.contentChanges.map((change) => ({
          startLine: change.range.start.line,
          startCharacter: change.range.start.character,
          endLine: change.range.end.line,
          endCharacter: change.range.end.character,
          text: change.text,
        }));
        this.book.changed(absolute, changes, linesOfText(event.document.getText()));
      }),
    );
    this._register(
      vscode.workspace.onDidOpenTextDocument((document) => {
        if (document.uri.scheme === 'file' && this.book.of(document.uri.fsPath).length > 0)
          this.book.relocate(document.uri.fsPath, linesOfText(document.getText()));
      }),
    );
    this._register({ dispose: () => this.threads.forEach((thread) => thread.dispose()) });
  }

  handlers(): Record<string, (argument?: unknown) => Promise<void>> {
    return {
      [REVIEW_COMMENT_COMMANDS.add]: async (reply) => {
        this.add(reply);
      },
      [REVIEW_COMMENT_COMMANDS.addAndSend]: async (reply) => {
        if (this.add(reply)) await this.send();
      },
      [REVIEW_COMMENT_COMMANDS.send]: async () => this.send(),
      [REVIEW_COMMENT_COMMANDS.remove]: async (argument) => {
        const id = this.idOf(argument);
        if (id !== undefined) this.book.remove(id);
      },
    };
  }

  /** "Send Comments to OpenAgent": every waiting comment, one message per session. */
  async send(): Promise<void> {
    const outgoing = this.book.send((absolute) => readLines(absolute));
    if (outgoing.length === 0) {
      void vscode.window.showInformationMessage('OpenAgent has no review comments waiting to be sent.');
      return;
    }
    for (const message of outgoing) await this.deliver(message);
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const drafts = this.book.drafts().filter((comment) => comment.absolute === document.uri.fsPath);
    if (drafts.length === 0) return [];
    const all = this.book.drafts().length;
    const line = Math.min(...drafts.map((comment) => comment.range.startLine), document.lineCount - 1);
    return [
      new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
        title: `$(comment) Send ${all === 1 ? '1 Comment' : `${all} Comments`} to OpenAgent`,
        command: REVIEW_COMMENT_COMMANDS.send,
      }),
    ];
  }

  private async deliver(message: Outgoing): Promise<void> {
    const sent = await this.sendTo(message.session, message.text).catch((error: unknown) => ({
      problem: error instanceof Error ? error.message : String(error),
      queued: false,
    }));
    if (sent.problem) {
      this.book.failed(message);
      void vscode.window.showWarningMessage(`OpenAgent could not send the review comments: ${sent.problem}`);
      return;
    }
    const count = message.ids.length === 1 ? '1 review comment' : `${message.ids.length} review comments`;
    if (message.left > 0)
      void vscode.window.showInformationMessage(
        `OpenAgent: sent ${count}; ${message.left} more did not fit in one message — send again once the agent has answered.`,
      );
    else
      vscode.window.setStatusBarMessage(
        `OpenAgent: ${count} sent${sent.queued ? ' (queued: the agent is working)' : ''}`,
        8_000,
      );
  }

  /** The comment of a thread the user typed in (a CommentReply): added, or refused with why. */
  private add(argument: unknown): ReviewComment | undefined {
    const reply = argument as vscode.CommentReply | undefined;
    const thread = reply?.thread;
    if (!thread || typeof reply.text !== 'string') return undefined;
    const target = thread.uri.scheme === 'file' ? commentTarget(this.reviews, thread.uri.fsPath) : undefined;
    const refuse = (reason: string) => {
      void vscode.window.showWarningMessage(`OpenAgent did not add the comment: ${reason}`);
      return undefined;
    };
    if (!target) return refuse('comments go on files the agent changed, in its folder.');
    const lines = readLines(thread.uri.fsPath);
    if (!lines) return refuse('the file no longer exists.');
    const range = thread.range ?? new vscode.Range(0, 0, 0, 0);
    // A selection ending at the start of a line does not take that line.
    const endLine =
      range.end.line > range.start.line && range.end.character === 0 ? range.end.line - 1 : range.end.line;
    const made = this.book.add({
      session: target.session,
      path: target.relative,
      absolute: thread.uri.fsPath,
      range: { startLine: range.start.line, endLine },
      body: reply.text,
      lines,
    });
    if ('refused' in made) return refuse(made.refused);
    // The thread the user typed in becomes the comment's (sync gives it its look).
    if (this.threads.has(made.id)) thread.dispose();
    else this.threads.set(made.id, thread);
    this.sync();
    return made;
  }

  /** The threads as the book says: one per comment, where it is now, in its state. */
  private sync(): void {
    const live = new Set<number>();
    for (const comment of this.book.list()) {
      live.add(comment.id);
      const range = new vscode.Range(comment.range.startLine, 0, comment.range.endLine, 0);
      let thread = this.threads.get(comment.id);
      if (!thread) {
        thread = this.controller.createCommentThread(vscode.Uri.file(comment.absolute), range, []);
        this.threads.set(comment.id, thread);
      } else if (!thread.range || !thread.range.isEqual(range)) thread.range = range;
      present(thread, comment);
    }
    for (const [id, thread] of this.threads)
      if (!live.has(id)) {
        thread.dispose();
        this.threads.delete(id);
      }
    this.lensesChanged.fire();
  }

  private idOf(argument: unknown): number | undefined {
    // A thread's title menu passes the thread; a comment's title menu passes the comment.
    for (const [id, thread] of this.threads)
      if (argument === thread || thread.comments.some((comment) => comment === argument)) return id;
    return undefined;
  }
}

const STATE_LABEL: Record<ReviewComment['state'], string> = {
  draft: 'not sent yet',
  sent: 'sent, waiting for the agent',
  received: 'the agent is working on it',
};

function present(thread: vscode.CommentThread, comment: ReviewComment): void {
  const label = `OpenAgent · ${STATE_LABEL[comment.state]}${comment.outdated ? ' · outdated' : ''}`;
  const contextValue = `openagent-${comment.state}`;
  if (thread.label !== label) thread.label = label;
  if (thread.contextValue !== contextValue) thread.contextValue = contextValue;
  thread.canReply = false;
  const [shown] = thread.comments;
  if (shown?.body === comment.body && shown.contextValue === contextValue && shown.label === labelOf(comment)) return;
  thread.comments = [
    {
      body: comment.body,
      mode: vscode.CommentMode.Preview,
      author: { name: 'You' },
      contextValue,
      ...(labelOf(comment) ? { label: labelOf(comment) } : {}),
    },
  ];
}

function labelOf(comment: ReviewComment): string | undefined {
  return comment.outdated ? 'Outdated' : undefined;
}

/** A file's lines as the editor has them (unsaved text too), else on disk; undefined when it is gone. */
function readLines(absolute: string): string[] | undefined {
  const open = vscode.workspace.textDocuments.find(
    (document) => document.uri.scheme === 'file' && document.uri.fsPath === absolute,
  );
  if (open && !open.isClosed) {
    if (!fs.existsSync(absolute) && !open.isDirty) return undefined;
    return linesOfText(open.getText());
  }
  try {
    return linesOfText(fs.readFileSync(absolute, 'utf8'));
  } catch {
    return undefined;
  }
}

function linesOfText(text: string): string[] {
  return text.split(/\r?\n/);
}
