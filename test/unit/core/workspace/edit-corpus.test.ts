import assert from 'node:assert/strict';
import { loadCorpus, runCase } from '../../../fixtures/edit-corpus/corpus';

/** The words edit_file's result uses for each rung of the matching ladder. */
const RUNG_WORDS = {
  'trailing-whitespace': /ignoring trailing whitespace/,
  indentation: /ignoring indentation; newText re-indented/,
  'line-numbers': /line-number prefixes/,
};

describe('edit corpus (edit requests from published failure reports, through the real edit_file)', () => {
  const corpus = loadCorpus();

  it('has at least 60 cases, each citing the report it was written from', () => {
    assert.ok(corpus.length >= 60, `${corpus.length} cases`);
    for (const entry of corpus) assert.match(entry.source, /^https:\/\/github\.com\//, entry.name);
  });

  for (const entry of corpus)
    it(`${entry.group}: ${entry.name}`, async () => {
      const result = await runCase(entry);
      if (entry.expect === 'refused') {
        assert.equal(result.verdict, 'refused-right', `the file changed:\n${result.after}\n${result.output}`);
        for (const words of entry.message ?? [])
          assert.ok(result.output.includes(words), `"${words}" in:\n${result.output}`);
        return;
      }
      assert.equal(result.after, entry.expect.text, result.output);
      assert.equal(result.verdict, 'applied-right', result.output);
      if (entry.expect.rung === 'exact') assert.doesNotMatch(result.output, /ignoring|prefixes/);
      else assert.match(result.output, RUNG_WORDS[entry.expect.rung]);
    });
});
