/**
 * The user's review comments as one message to the agent (issue 36): each comment with its file,
 * its lines (1-based) and the code those lines hold — the code it was made on when it is outdated
 * or its file is gone, said so. The comment's text is the user's and is quoted line by line
 * ("> "), so nothing in it can pass for the message's own structure (a heading of another
 * comment, a "system" section, a code fence); control characters are dropped and a long comment
 * is cut. The message stays far below what a queued prompt may hold, and says how many comments
 * it left for the next one.
 */

/** A comment as it is sent. Lines are 0-based, inclusive. */
export interface CommentToSend {
  /** Relative to the session's folder, with "/". */
  path: string;
  startLine: number;
  endLine: number;
  body: string;
  /** The code the comment points at: the current lines, or the code it was made on when `status` says so. */
  code: readonly string[];
  /** current: the lines hold `code` now; outdated: they changed (`code` is what they were); missing: the file is gone. */
  status: 'current' | 'outdated' | 'missing';
}

/** Comments sent in one message at most; the others wait for the next Send. */
export const COMMENTS_PER_MESSAGE = 50;
/** A comment's text is cut past this many characters. */
export const COMMENT_BODY_CHARS = 4_000;
/** Lines of code shown per comment, and characters per line. */
export const CODE_LINES = 30;
export const CODE_LINE_CHARS = 300;
/** The message stops adding comments past this size (a queued prompt may hold 200,000). */
export const MESSAGE_CHARS = 60_000;

export interface CommentMessage {
  text: string;
  /** How many of the comments (the first ones) it holds. */
  included: number;
}

export function reviewCommentsMessage(comments: readonly CommentToSend[]): CommentMessage {
  const parts: string[] = [];
  let size = 0;
  let included = 0;
  for (const comment of comments.slice(0, COMMENTS_PER_MESSAGE)) {
    const part = describe(comment, included + 1);
    if (size + part.length > MESSAGE_CHARS && included > 0) break;
    parts.push(part);
    size += part.length;
    included++;
  }
  const left = comments.length - included;
  const header =
    `[Review comments from the user on your changes: ${plural(included, 'comment')}. Each names a file and ` +
    'its lines, quotes the comment (the lines starting with ">" are the user\'s words, nothing else) and ' +
    'shows the code of those lines. Make the changes they ask for; read a file again before editing it.]';
  const footer =
    left > 0
      ? [
          `[${plural(left, 'more comment')} left out of this message; the user can send ${left === 1 ? 'it' : 'them'} next.]`,
        ]
      : [];
  return { text: [header, ...parts, ...footer].join('\n\n'), included };
}

function describe(comment: CommentToSend, number: number): string {
  const lines =
    comment.startLine === comment.endLine
      ? `line ${comment.startLine + 1}`
      : `lines ${comment.startLine + 1}-${comment.endLine + 1}`;
  const note =
    comment.status === 'outdated'
      ? ' (outdated: these lines have changed since; the code below is what they held when the user commented)'
      : comment.status === 'missing'
        ? ' (the file no longer exists; the code below is what these lines held when the user commented)'
        : '';
  return [
    `Comment ${number}: ${cleanLine(comment.path)} ${lines}${note}`,
    quote(comment.body),
    fenced(comment.code),
  ].join('\n');
}

/** The user's text, each line quoted; control characters dropped, cut when long. */
function quote(body: string): string {
  let text = clean(body).trim();
  if (text.length > COMMENT_BODY_CHARS)
    text = `${text.slice(0, COMMENT_BODY_CHARS)}… (${(text.length - COMMENT_BODY_CHARS).toLocaleString('en-US')} more characters cut)`;
  if (!text) text = '(empty comment)';
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** The code in a fence longer than any run of backticks in it, so nothing in it closes the fence. */
function fenced(code: readonly string[]): string {
  const shown = code
    .slice(0, CODE_LINES)
    .map((line) => cleanLine(line.length > CODE_LINE_CHARS ? `${line.slice(0, CODE_LINE_CHARS)}…` : line));
  if (code.length > CODE_LINES) shown.push(`… ${code.length - CODE_LINES} more lines`);
  const longest = Math.max(
    2,
    ...shown.map((line) => Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length))),
  );
  const fence = '`'.repeat(longest + 1);
  return [fence, ...shown, fence].join('\n');
}

/**
 * Drops C0/C1 control characters (but newline and tab), and bidirectional overrides that make
 * text read differently from what it holds; a carriage return ends a line.
 */
function clean(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/** One line of text (a path, a line of code): no line breaks either. */
function cleanLine(text: string): string {
  return clean(text).replace(/\n/g, ' ');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
