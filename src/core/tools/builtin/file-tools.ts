/**
 * The file tools: read_file, list_files, write_file, edit_file and glob, over the WorkspaceFiles port.
 * Every path goes through resolveWorkspacePath (real-path containment); reads are capped so a
 * huge or minified file cannot flood the context.
 */
import * as path from 'node:path';
import { z } from 'zod';
import type { ImageFiles, WorkspaceFiles, WrittenFile } from '../../ports';
import { readImageFile, isImageFileName } from './read-image';
import { applyEdits } from '../../workspace/apply-edits';
import { BYTE_PATH_MIN_BYTES, exactByteEdit } from '../../workspace/byte-edit';
import { EditFailures } from './edit-failures';
import { SecretReads, secretRefusal } from '../../policy/secret-reads';
import { ReadVersions } from './read-versions';
import { resolveWorkspacePath } from '../../workspace/workspace-path';
import { defineTool, type AnyTool, type ToolContext } from '../tool';

/** Files larger than this are not read whole; the model is told to search instead. */
export const MAX_READ_BYTES = 20 * 1024 * 1024;
const DEFAULT_LINES = 2_000;
const MAX_LINE_CHARS = 2_000;

export function createFileTools(workspace: WorkspaceFiles, images?: ImageFiles): AnyTool[] {
  const failures = new EditFailures();
  const versions = new ReadVersions();
  const resolve = (input: string) => resolveWorkspacePath(workspace.root, input, workspace);
  const relative = (absolute: string) => path.relative(workspace.root, absolute) || '.';
  /**
   * Whose numbers: one model's. A sub-agent shares the conversation but not the lead's context,
   * so a version it read is not one whose numbers the lead saw.
   */
  const seenBy = (context: ToolContext, absolute: string) =>
    `${context.conversationId}\0${context.agentId}\0${absolute}`;

  const readFile = defineTool({
    name: 'read_file',
    description: `Read a text file of the workspace, with line numbers (a PNG, JPEG, GIF or WebP file is returned as an image when the model accepts images). Reads ${DEFAULT_LINES} lines from \`offset\` (1-based) unless \`limit\` says otherwise.`,
    inputSchema: z.object({
      path: z.string().describe('Path relative to the workspace root.'),
      offset: z.number().int().min(1).optional().describe('First line to read (1-based).'),
      limit: z.number().int().min(1).max(10_000).optional().describe('How many lines to read.'),
    }),
    readOnly: true,
    needsApproval: false,
    traits: { path: (input) => input.path },
    summarize: (input) => `Read ${input.path}`,
    async execute(input, context) {
      const absolute = await resolve(input.path);
      const stat = await workspace.stat(absolute);
      if (!stat) return { output: `${input.path} does not exist.`, isError: true };
      // The question is asked before the call runs (call-risk.ts); a call that was not asked gets nothing.
      if (await (await SecretReads.of(workspace, context.approvedSecret)).hides(absolute))
        return { output: secretRefusal(input.path), isError: true };
      if (stat.type === 'directory') return { output: `${input.path} is a folder; use list_files.`, isError: true };
      if (stat.size > MAX_READ_BYTES)
        return {
          output: `${input.path} is ${(stat.size / 1_048_576).toFixed(0)} MB, too large to read; use search_files to find what you need.`,
          isError: true,
        };
      // A picture goes to a model that sees images as an image; SVG is text and is read as text.
      if (images && isImageFileName(absolute)) return readImageFile(images, absolute, input.path);
      const { text } = await workspace.readText(absolute);
      const lines = text.split(/\r?\n/);
      const start = (input.offset ?? 1) - 1;
      const end = Math.min(lines.length, start + (input.limit ?? DEFAULT_LINES));
      if (start >= lines.length)
        return {
          output: `${input.path} has ${lines.length} lines; offset ${input.offset} is past the end.`,
          isError: true,
        };
      const width = String(end).length;
      const shown = lines.slice(start, end).map((line, index) => {
        const cut =
          line.length > MAX_LINE_CHARS
            ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters]`
            : line;
        return `${String(start + index + 1).padStart(width)}\t${cut}`;
      });
      const more = end < lines.length ? `\n[${lines.length - end} more lines: read on with offset ${end + 1}]` : '';
      // The numbers shown are those of this version: numbered edits are placed by them while it lasts.
      versions.sawWhole(seenBy(context, absolute), text);
      return shown.join('\n') + more;
    },
  });

  const listFiles = defineTool({
    name: 'list_files',
    description: 'List files and folders under a workspace folder (ignored files left out).',
    inputSchema: z.object({
      path: z.string().default('.').describe('Folder relative to the workspace root.'),
      recursive: z.boolean().default(false),
    }),
    readOnly: true,
    needsApproval: false,
    traits: { path: (input) => input.path },
    summarize: (input) => `List ${input.path}`,
    async execute(input) {
      const absolute = await resolve(input.path);
      const stat = await workspace.stat(absolute);
      if (stat?.type !== 'directory') return { output: `${input.path} is not a folder.`, isError: true };
      const { entries, truncated } = await workspace.list(absolute, { recursive: input.recursive, limit: 1_000 });
      if (entries.length === 0) return `${input.path} is empty.`;
      return entries.join('\n') + (truncated ? '\n[more entries not shown: list a subfolder]' : '');
    },
  });

  const glob = defineTool({
    name: 'glob',
    description:
      'Find files by name pattern, e.g. "**/*.test.ts" or "src/**/{index,main}.{js,ts}" (ignored files left out). Paths are relative to the workspace root.',
    inputSchema: z.object({
      pattern: z.string().min(1).max(500),
      path: z.string().default('.').describe('Folder the pattern is relative to.'),
    }),
    readOnly: true,
    needsApproval: false,
    traits: { path: (input) => input.path },
    summarize: (input) => `Find files ${input.pattern}`,
    async execute(input) {
      const absolute = await resolve(input.path);
      if ((await workspace.stat(absolute))?.type !== 'directory')
        return { output: `${input.path} is not a folder.`, isError: true };
      const { entries, truncated } = await workspace.list(absolute, {
        recursive: true,
        limit: 1_000,
        pattern: input.pattern,
      });
      if (entries.length === 0) return `No files match ${input.pattern} in ${input.path}.`;
      return entries.join('\n') + (truncated ? '\n[more files match: narrow the pattern]' : '');
    },
  });

  const writeFile = defineTool({
    name: 'write_file',
    description: 'Create a file, or replace the whole content of one. Prefer edit_file to change part of a file.',
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    readOnly: false,
    needsApproval: true,
    traits: { path: (input) => input.path, writes: true },
    summarize: (input) => `Write ${input.path}`,
    async execute(input, context) {
      const absolute = context.checkedPath ?? (await resolve(input.path));
      const stat = await workspace.stat(absolute);
      if (stat?.type === 'directory') return { output: `${input.path} is a folder.`, isError: true };
      // An existing file keeps its encoding, BOM and line endings.
      const format = stat ? await workspace.readText(absolute).then(({ text: _text, ...rest }) => rest) : undefined;
      const content = format?.lineEnding === '\r\n' ? input.content.replace(/\r?\n/g, '\r\n') : input.content;
      const written = await workspace.writeText(absolute, content, format);
      failures.clear(`${context.conversationId}\0${absolute}`);
      versions.sawWhole(seenBy(context, absolute), content);
      return `${stat ? 'Replaced' : 'Created'} ${relative(absolute)} (${content.split('\n').length} lines).${linkNote(written, relative(absolute))}`;
    },
  });

  const editFile = defineTool({
    name: 'edit_file',
    description:
      "Replace text in a file. Each edit's oldText must match one place exactly (whitespace included) unless replaceAll is set; copy it from read_file without the line-number prefixes. " +
      'Edits apply in order, all or nothing.',
    inputSchema: z.object({
      path: z.string(),
      edits: z
        .array(z.object({ oldText: z.string(), newText: z.string(), replaceAll: z.boolean().optional() }))
        .min(1)
        .max(100),
    }),
    readOnly: false,
    needsApproval: true,
    traits: { path: (input) => input.path, writes: true },
    summarize: (input) => `Edit ${input.path}`,
    async execute(input, context) {
      const absolute = context.checkedPath ?? (await resolve(input.path));
      const stat = await workspace.stat(absolute);
      if (!stat) return { output: `${input.path} does not exist; use write_file to create it.`, isError: true };
      // Its refusals quote the file: a secret one is edited only in a call the user approved.
      if (await (await SecretReads.of(workspace, context.approvedSecret)).hides(absolute))
        return { output: secretRefusal(input.path), isError: true };
      const key = `${context.conversationId}\0${absolute}`;
      // A big file whose one edit matches exactly once: replaced in its bytes, nothing decoded.
      if (stat.size >= BYTE_PATH_MIN_BYTES && workspace.readBytes && workspace.writeUtf8Bytes) {
        const pieces = exactByteEdit(await workspace.readBytes(absolute), input.edits);
        if (pieces) {
          failures.clear(key);
          const written = await workspace.writeUtf8Bytes(absolute, pieces);
          return `Edited ${relative(absolute)}: 1 replacement.${linkNote(written, relative(absolute))}`;
        }
      }
      const { text, ...format } = await workspace.readText(absolute);
      const outcome = applyEdits(text, format.lineEnding, input.edits, {
        knownLines: versions.knownLines(seenBy(context, absolute), text),
      });
      if (!outcome.ok) {
        const hint = failures.refused(key, stat.size);
        return { output: `${input.path} was not changed. ${outcome.reason}${hint}`, isError: true };
      }
      failures.clear(key);
      const written = await workspace.writeText(absolute, outcome.pieces, format);
      versions.edited(seenBy(context, absolute), outcome.pieces, outcome.knownLines);
      const notes = outcome.notes.length ? `\n${outcome.notes.join('\n')}` : '';
      return `Edited ${relative(absolute)}: ${outcome.replacements} replacement${outcome.replacements === 1 ? '' : 's'}.${notes}${linkNote(written, relative(absolute))}`;
    },
  });

  return [readFile, listFiles, writeFile, editFile, glob];
}

/**
 * Said when the file had other hard links: the write made it a file of its own, so the other
 * names (perhaps outside the workspace, or a protected file) still have the old content.
 */
function linkNote(written: WrittenFile | void, name: string): string {
  const others = written?.otherLinks ?? 0;
  if (others === 0) return '';
  const links = others === 1 ? 'another hard link' : `${others} other hard links`;
  return `\nNote: ${name} had ${links} (the same file under other names). It was written as a new file, so the link is broken: the other names still have the old content.`;
}
