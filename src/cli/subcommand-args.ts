/**
 * The flags of a subcommand (`replay`, `compare`, `export-run`…): node's parseArgs, strict, with
 * positionals; a flag it does not know is a usage problem in words (exit 2 at the caller), and
 * `--help` is answered with the usage — so each subcommand only says what its flags mean.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

export type SubcommandArgs<O extends Options> =
  | { kind: 'parsed'; values: Parsed<O>['values']; positionals: string[] }
  | { kind: 'help' }
  | { kind: 'problem'; message: string };

export function parseSubcommand<O extends Options & { help: { type: 'boolean'; short: 'h' } }>(
  argv: string[],
  options: O,
  usage: string,
): SubcommandArgs<O> {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    return { kind: 'problem', message: `${error instanceof Error ? error.message : String(error)}\n\n${usage}` };
  }
  if ((parsed.values as { help?: boolean }).help) return { kind: 'help' };
  return { kind: 'parsed', values: parsed.values, positionals: parsed.positionals };
}
