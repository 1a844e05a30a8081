/**
 * Glob patterns as VS Code reads them (`**` any folders, `*` and `?` within one name, `{a,b}`
 * alternatives, `[abc]` classes), turned into a regular expression over `/`-separated relative
 * paths: the matcher before the automaton in src/core/workspace/glob.ts, kept as the tests'
 * oracle (the two must agree). It backtracks: never used on input from outside.
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  let braces = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '*') {
      if (glob[index + 1] === '*') {
        // `**/` matches zero or more folders; a trailing `**` matches everything below.
        const slash = glob[index + 2] === '/';
        source += slash ? '(?:[^/]+/)*' : '.*';
        index += slash ? 2 : 1;
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else if (char === '{') {
      braces++;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (char === ',' && braces > 0) source += '|';
    else if (char === '[') {
      const close = glob.indexOf(']', index + 1);
      if (close < 0) source += '\\[';
      else {
        const body = glob.slice(index + 1, close).replace(/\\/g, '\\\\');
        source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        index = close;
      }
    } else source += char.replace(/[.+^$()|\\]/g, '\\$&');
  }
  if (braces > 0) throw new Error(`Unbalanced { in the glob ${glob}`);
  return new RegExp(`^${source}$`);
}
