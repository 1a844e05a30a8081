/**
 * Changes one value of a policy file's YAML text, keeping everything else — comments, order,
 * layout — as the user wrote it (the `yaml` package's document model, not a re-serialisation of
 * the parsed object). Used by "Raise Budget".
 */
import { yaml } from '../text/yaml';

export function setPolicyValue(text: string, path: readonly string[], value: number | string | boolean): string {
  const document = yaml().parseDocument(text);
  if (document.errors.length > 0) throw new Error(`the file does not parse: ${document.errors[0]!.message}`);
  // An empty file (or one with only comments) has no map to set into yet.
  if (document.contents === null) document.contents = document.createNode({}) as unknown as typeof document.contents;
  document.setIn(path, value);
  return document.toString();
}
