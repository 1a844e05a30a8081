/** A store failure the host can explain to the user; `kind` says which fix to offer. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly kind: 'future_schema' | 'corrupt' | 'disk_full' | 'read_only' | 'locked' | 'io',
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Maps a file-system error to a StoreError with words a user understands. */
export function storeErrorFrom(error: unknown, action: string): StoreError {
  if (error instanceof StoreError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new StoreError(`Could not ${action}: the disk is full. Nothing already saved was lost.`, 'disk_full');
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new StoreError(
      `Could not ${action}: the storage folder is read-only. Nothing already saved was lost.`,
      'read_only',
    );
  }
  return new StoreError(`Could not ${action}: ${error instanceof Error ? error.message : String(error)}`, 'io');
}
