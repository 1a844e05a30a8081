import type * as vscode from 'vscode';

/** Base for objects that own disposables: register them once, release them together. */
export abstract class Disposable implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;

  protected _register<T extends vscode.Disposable>(disposable: T): T {
    if (this.disposed) disposable.dispose();
    else this.disposables.push(disposable);
    return disposable;
  }

  /** Disposed: work that was waiting (an await) when it happened must not go on. */
  protected get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    while (this.disposables.length > 0) {
      try {
        this.disposables.pop()?.dispose();
      } catch {
        // keep releasing the rest
      }
    }
  }
}
