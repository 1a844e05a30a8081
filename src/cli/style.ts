/** Terminal colours, off when the output is not a terminal or NO_COLOR is set (no-color.org). */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function createStyle(enabled: boolean): Style {
  const paint = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    dim: paint(2, 22),
    bold: paint(1, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
  };
}

export function colorWanted(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv): boolean {
  return Boolean((stream as { isTTY?: boolean }).isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}
