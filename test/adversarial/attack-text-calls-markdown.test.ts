/**
 * Issue 32, item 10, second pass: tool calls written as examples in shapes the first tests did
 * not try (setext headings, reference definitions, raw HTML that hides or holds code, harmony's
 * analysis channel, table cells, images, link destinations, escapes, a stream cut at every
 * place), genuine calls that must still run, the cost of hostile answers, and a differential
 * check of the recovery against markdown-it's own rendering on random hostile markdown.
 */
import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import type { LlmStreamPart } from '../../src/core/llm/llm-client';
import { MAX_DOCUMENT_CHARS } from '../../src/core/llm/text-tool-calls/code-context';
import { TextToolCallRecovery } from '../../src/core/llm/text-tool-calls/text-tool-call-recovery';
import { type Harness, startHarness } from '../unit/core/agent/loop-harness';

const call = (path = 'EXAMPLE.md') => `<tool_call>{"name": "read_file", "arguments": {"path": "${path}"}}</tool_call>`;
const CALL = call();
const MULTILINE = '<tool_call>\n{"name": "read_file", "arguments": {"path": "EXAMPLE.md"}}\n</tool_call>';
const XML = '<function=read_file>\n<parameter=path>\nEXAMPLE.md\n</parameter>\n</function>';

/** Streams `text` through the recovery in `chunk`-sized deltas; the paths of the calls it made. */
function recover(text: string, chunk = text.length || 1): { paths: string[]; text: string; invalid: number } {
  const recovery = new TextToolCallRecovery([{ name: 'read_file' }]);
  const parts: LlmStreamPart[] = [];
  for (let at = 0; at < text.length; at += chunk) parts.push(...recovery.text(text.slice(at, at + chunk)));
  parts.push(...recovery.end('end_turn'));
  return {
    paths: parts.flatMap((part) =>
      part.type === 'tool_call' ? [String((part.input as { path?: unknown }).path)] : [],
    ),
    text: parts.map((part) => (part.type === 'text_delta' ? part.text : '')).join(''),
    invalid: parts.filter((part) => part.type === 'tool_call_invalid').length,
  };
}

const EXAMPLES: Array<[string, string]> = [
  ['a link reference definition', `See [the format].\n\n[the format]: <${CALL}>\n`],
  ['a link reference title', `[x]: /url "${MULTILINE}"\n\n[x]`],
  ['a footnote-like definition', `As said[^1].\n\n[^1]: ${CALL}`],
  ['a <details> block', `<details>\n<summary>Example</summary>\n\n${CALL}\n\n</details>\n\nDone.`],
  ['inline <details>', `Click <details><summary>here</summary>${CALL}</details> ok`],
  ['an HTML comment opened inline and never closed', `Note <!-- ${CALL}\n\nmore`],
  ['an HTML comment block with blank lines', `<!-- example\n\n${MULTILINE}\n\n-->\nok`],
  ['a <code> opened in one paragraph and closed in another', `<code>\n\n${CALL}\n\n</code>`],
  ['an <xmp> block', `<xmp>\n${CALL}\n</xmp>`],
  ['inline <script>', `a <script>${CALL}</script> b`],
  ['inline <kbd>', `Press <kbd>${CALL}</kbd>.`],
  ['an HTML <div> block', `<div>\n${CALL}\n</div>`],
  ['an HTML block of an unknown tag', `<example>\n${CALL}\n</example>`],
  ['an image description', `![${CALL}](shot.png)`],
  ['a link destination', `[click](<${CALL}>)`],
  ['a table cell code span', `| a | b |\n|---|---|\n| \`${CALL}\` | x |`],
  ['a table cell code span after an escaped pipe', `| a |\n|---|\n| \`x \\| ${CALL}\` |`],
  ['a code span in a setext heading', `\`x\n${CALL}\`\n---`],
  ['an indented fence (an indented block)', `Shape:\n\n    \`\`\`\n    ${CALL}\n    \`\`\``],
  ['a fence in a list item in a blockquote', `> - item\n>\n>   \`\`\`\n>   ${CALL}\n>   \`\`\``],
  [
    'harmony analysis then final',
    `<|channel|>analysis<|message|>Could ${CALL}<|end|><|start|>assistant<|channel|>final<|message|>42`,
  ],
  [
    'harmony analysis from the start of the message',
    `<|start|>assistant<|channel|>analysis<|message|>\n${MULTILINE}\n`,
  ],
  [
    'harmony analysis opened in the prompt',
    `I could use ${CALL}<|end|><|start|>assistant<|channel|>final<|message|>42`,
  ],
  ['a <thinking> block in mid-answer', `Hm.\n\n<thinking>\n${XML}\n</thinking>\n\nDone.`],
  ['an escaped opener', `\\${CALL}`],
];

const GENUINE: Array<[string, string]> = [
  ['under a setext heading', `Reading\n=======\n\n${CALL}`],
  ['as a setext heading itself', `${CALL}\n---`],
  ['in a table cell outside code', `| a |\n|---|\n| ${CALL} |`],
  ['after an indented fence line that a longer fence follows', `    \`\`\`\n${CALL}\n\`\`\`\`\n`],
  ['after a closed <details>', `<details><summary>x</summary>y</details>\n\n${CALL}`],
  ['after a closed HTML comment', `<!-- plan -->\n\n${CALL}`],
  ['after a reference definition', `[a]: https://example.com\n\n${CALL}`],
  ['after an image', `![alt](x.png)\n\n${XML}`],
  ['after an escaped backslash', `\\\\${CALL}`],
  [
    'after harmony analysis, in the final channel',
    `<|channel|>analysis<|message|>read it<|end|><|start|>assistant<|channel|>final<|message|>${CALL}`,
  ],
  ['after a math block', `$$\nx^2\n$$\n\n${CALL}`],
  ['in a list item', `- reading:\n  ${CALL}`],
  ['after a closed multi-line code span', `See \`a\nb\` and ${CALL}`],
  ['after a backtick run a blank line leaves unclosed', `See \`\` a\n\n${CALL} \`\` x`],
  ['after an unmatched run of two on its line', `Run \`\` then ${CALL}`],
  // CommonMark: a fence has no lazy lines, so a line without ">" ends the quoted fence.
  ['between two quoted fences, on a line without ">"', `> \`\`\`\n${CALL}\n> \`\`\``],
  // A leading <think> ends at its first closer, as the model's template reads it.
  ['after reasoning whose first closer is in backticks', `<think>\nI mention \`</think>\` then ${CALL}\n</think>\nok`],
];

describe('attack: calls in new markdown shapes (issue 32, item 10)', function () {
  this.timeout(120_000);

  for (const [where, text] of EXAMPLES)
    it(`does not run a call in ${where}, however the stream is cut`, () => {
      for (const chunk of [text.length, 1, 2, 3, 5, 7, 11]) {
        const result = recover(text, chunk);
        assert.deepEqual(result.paths, [], `${chunk}: ${JSON.stringify(text)}`);
        assert.equal(result.invalid, 0);
        assert.equal(result.text, text, 'shown untouched');
      }
    });

  for (const [where, text] of GENUINE)
    it(`runs a call ${where}, however the stream is cut`, () => {
      for (const chunk of [text.length, 1, 2, 3, 5, 7, 11])
        assert.deepEqual(recover(text, chunk).paths, ['EXAMPLE.md'], `${chunk}: ${JSON.stringify(text)}`);
    });

  it('a stream cut inside the backticks around a call: every cut, no run', () => {
    const text = `Use \`\`${CALL}\`\` or \`${MULTILINE}\` to call.`;
    for (let cut = 1; cut < text.length; cut++) {
      const recovery = new TextToolCallRecovery([{ name: 'read_file' }]);
      const parts = [
        ...recovery.text(text.slice(0, cut)),
        ...recovery.text(text.slice(cut)),
        ...recovery.end('end_turn'),
      ];
      assert.ok(!parts.some((part) => part.type === 'tool_call'), `cut at ${cut}`);
    }
  });

  describe('end to end', () => {
    let harness: Harness | undefined;
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
    });
    for (const [protocol, text, runs] of [
      ['openai', EXAMPLES[3]![1], 0],
      ['anthropic', EXAMPLES[21]![1], 0],
      ['openai', GENUINE[9]![1], 1],
    ] as const)
      it(`${protocol}: ${runs ? 'runs' : 'does not run'} ${JSON.stringify(text.slice(0, 40))}…`, async () => {
        harness = await startHarness(protocol, { name: 'shapes', turns: [{ text, chunkSize: 3 }, { text: 'Done.' }] });
        await harness.conversation.submit('go');
        assert.equal(harness.events.at(-1)?.type, 'done');
        assert.equal(harness.events.filter((event) => event.type === 'tool_result').length, runs);
      });
  });
});

describe('attack: the cost of hostile answers (issue 32, item 10)', function () {
  this.timeout(240_000);
  const SIZE = 400_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length));
  const answers: Array<[string, string]> = [
    ['runs of "!["', fill('![')],
    ['runs of "["', fill('[')],
    ['emphasis around link openers', fill('*[_a')],
    ['link openers holding backticks', fill('[`')],
    ['setext headings', fill('a\n=\n')],
    ['a long table', `|a|b|\n|-|-|\n${fill('|x|y|\n')}`],
    ['a table 5,000 columns wide', `|${'a|'.repeat(5_000)}\n|${'-|'.repeat(5_000)}\n${fill(`${'|x'.repeat(100)}\n`)}`],
    ['reference definitions', fill('[a]: b\n')],
    ['backslashes', fill('\\')],
    ['entities', fill('&#')],
    ['unclosed link destinations', fill('[a](<')],
    ['HTML block openers', fill('<div>\n')],
  ];
  for (const [shape, body] of answers)
    it(`a 400 KB answer of ${shape}, then a call: the call runs, nothing is lost`, () => {
      const text = `${body}\n\n${CALL}`;
      const started = process.cpuUsage();
      const result = recover(text, 4_096);
      const used = process.cpuUsage(started);
      assert.deepEqual(result.paths, ['EXAMPLE.md']);
      assert.equal(result.text.length + result.paths.length * CALL.length, text.length, 'nothing is lost');
      // Linear work takes well under a second; quadratic work on 400 KB takes minutes.
      assert.ok(used.user + used.system < 20_000_000, `${(used.user + used.system) / 1000} ms`);
    });

  it('an answer longer than the reading bound: nothing runs, nothing is lost', () => {
    const text = `${'word '.repeat(MAX_DOCUMENT_CHARS / 5)}\n\n${CALL}`;
    const result = recover(text, 65_536);
    assert.deepEqual(result.paths, []);
    assert.equal(result.text, text);
  });

  it('links nested past the inline bound around a code span: no run', () => {
    const text = `${'[!['.repeat(200)}\`x ${CALL}\`${'](u)]'.repeat(200)}`;
    assert.deepEqual(recover(text, 97).paths, []);
  });
});

/**
 * The oracle: markdown-it renders the answer itself (the calls as plain text: no raw HTML is in
 * these answers), and a call is prose when its text is in the rendered HTML outside every
 * <code> and every tag. The recovery, streamed in random pieces, must never run a call the
 * oracle puts in code, and must decide the same however the stream is cut.
 */
describe('attack: differential against markdown-it rendering, random hostile markdown (issue 32, item 10)', function () {
  this.timeout(600_000);
  const renderer = new MarkdownIt('default', { html: false, linkify: false, typographer: false });
  const PIECES = [
    '`',
    '``',
    '```',
    '~~~',
    '````',
    '    ',
    '  ',
    '\t',
    '\n',
    '\n\n',
    '> ',
    '- ',
    '* ',
    '1. ',
    '2) ',
    '+ ',
    '_',
    '*',
    '[',
    ']',
    '(',
    ')',
    '![',
    ':',
    '\\',
    'a',
    'b ',
    ' ',
    '|',
    '---',
    '===',
    '# ',
    '"',
    '&amp;',
    '\r\n',
  ];
  /** A small seeded generator: the same inputs every run, and a failing seed can be replayed. */
  function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
  }
  const escapeHtml = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

  /** The paths of the calls the rendering shows as prose. */
  function oracle(text: string, paths: string[]): string[] {
    const html = renderer.render(text);
    const prose: string[] = [];
    for (const path of paths) {
      const at = html.indexOf(escapeHtml(call(path)));
      if (at < 0) continue;
      let code = 0;
      let inTag = false;
      for (const match of html.slice(0, at).matchAll(/<(\/?)code\b[^>]*>|<[^>]*>|<[^>]*$/g)) {
        if (match[0].startsWith('<code') || match[0].startsWith('</code')) code += match[1] ? -1 : 1;
        if (match.index + match[0].length === at && !match[0].endsWith('>')) inTag = true;
      }
      // An open `<` with no `>` before the call: the call is inside a tag (an attribute).
      if (/<[^>]*$/.test(html.slice(0, at))) inTag = true;
      if (code === 0 && !inTag) prose.push(path);
    }
    return prose;
  }

  it('never runs what the rendering shows as code, on 3,000 random answers', () => {
    const next = random(32_10);
    let agreed = 0;
    let shownNotRun = 0;
    for (let round = 0; round < 3_000; round++) {
      const parts: string[] = [];
      const paths: string[] = [];
      const length = 4 + Math.floor(next() * 40);
      for (let piece = 0; piece < length; piece++) {
        if (next() < 0.12) {
          const path = `P${round}_${paths.length}.md`;
          paths.push(path);
          parts.push(call(path));
        } else parts.push(PIECES[Math.floor(next() * PIECES.length)]!);
      }
      const text = parts.join('');
      const expected = oracle(text, paths);
      const whole = recover(text).paths;
      const chunk = 1 + Math.floor(next() * 9);
      const streamed = recover(text, chunk).paths;
      assert.deepEqual(streamed, whole, `chunk ${chunk} changed the verdict: ${JSON.stringify(text)}`);
      for (const path of whole)
        assert.ok(expected.includes(path), `ran ${path}, which the rendering shows as code: ${JSON.stringify(text)}`);
      if (whole.length === expected.length) agreed++;
      else shownNotRun++;
    }
    // Calls the rendering shows as prose but the recovery left as text: the scanner's early
    // release (a backtick run it took for a code span that never closes); safe, and rare.
    assert.ok(agreed >= 2_700, `agreed on ${agreed} of 3,000 (${shownNotRun} shown, not run)`);
  });
});
