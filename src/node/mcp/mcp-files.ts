/**
 * Reading MCP configuration files and env files. A workspace's files are read inside the
 * workspace only (contained-files.ts): a link leading out, a FIFO, a device or a folder in place
 * of the file is refused with a message, never followed, waited on or read without end. Sizes
 * are capped before reading.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isInside } from '../../core/workspace/workspace-path';
import { ContainedFiles } from '../contained-files';

/** An env file is a few lines; bigger is refused unread. */
export const MAX_ENV_FILE_BYTES = 256 * 1024;

export class McpFileError extends Error {}

/**
 * The text of `absolute` inside the workspace `root`, or undefined when there is no such file.
 * Links are followed only while they stay inside the root.
 */
export async function readWorkspaceText(root: string, absolute: string, maxBytes: number): Promise<string | undefined> {
  if (!isInside(root, absolute)) throw new McpFileError(`${absolute} is outside the workspace`);
  let size: number;
  try {
    // stat follows links: a link leading out is caught by the contained read below.
    const stats = await fs.stat(absolute);
    if (!stats.isFile()) throw new McpFileError(`${relativeTo(root, absolute)} is not a regular file`);
    size = stats.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof McpFileError) throw error;
    throw new McpFileError(`${relativeTo(root, absolute)}: ${(error as Error).message}`);
  }
  if (size > maxBytes)
    throw new McpFileError(`${relativeTo(root, absolute)} is over ${Math.round(maxBytes / 1024)} KiB: not read`);
  let bytes: Buffer;
  try {
    bytes = await new ContainedFiles(root).read(absolute);
  } catch (error) {
    throw new McpFileError(`${relativeTo(root, absolute)}: ${(error as Error).message}`);
  }
  if (bytes.length > maxBytes)
    throw new McpFileError(`${relativeTo(root, absolute)} grew over ${Math.round(maxBytes / 1024)} KiB: not read`);
  return bytes.toString('utf8');
}

/** The text of a file of the user's own (their mcp.json or its env file), size-capped, regular files only. */
export async function readUserText(absolute: string, maxBytes: number): Promise<string | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(absolute, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new McpFileError(`${absolute}: ${(error as Error).message}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new McpFileError(`${absolute} is not a regular file`);
    if (stats.size > maxBytes)
      throw new McpFileError(`${absolute} is over ${Math.round(maxBytes / 1024)} KiB: not read`);
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * A definition's env file, resolved against the workspace for a workspace definition (and
 * required to stay inside it) or against the user's file's folder for the user's own.
 */
export async function readEnvFileText(
  file: string,
  options: { workspaceRoot?: string; userFolder?: string },
): Promise<string> {
  const base = options.workspaceRoot ?? options.userFolder;
  if (!base) throw new McpFileError(`envFile ${file}: there is no folder to find it in`);
  const absolute = path.resolve(base, file);
  const text = options.workspaceRoot
    ? await readWorkspaceText(options.workspaceRoot, absolute, MAX_ENV_FILE_BYTES)
    : await readUserText(absolute, MAX_ENV_FILE_BYTES);
  if (text === undefined) throw new McpFileError(`envFile ${file} does not exist`);
  return text;
}

function relativeTo(root: string, absolute: string): string {
  return path.relative(root, absolute) || absolute;
}
