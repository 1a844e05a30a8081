import * as fs from 'node:fs';
import type { SuiteResults } from '../integration/index';
import { summaryLine } from './workbench-session';

export interface SuiteTally {
  passed: number;
  failed: number;
  pending: number;
  /** Each failed test's title and the first lines of its error, repeated in the closing summary. */
  failures?: string[];
}

/** A suite that could not report counts as one failure. */
export const NO_RESULTS: SuiteTally = { passed: 0, failed: 1, pending: 0 };

/** Prints the results the in-editor suite wrote, with its own "N passed, N failed" line; returns the counts. */
export function reportSuiteResults(
  resultsFile: string,
  heading: string,
  onFailure: () => void = () => undefined,
): SuiteTally {
  if (!fs.existsSync(resultsFile)) {
    onFailure();
    console.log(`${heading}: the suite wrote no results (the extension host failed to load it?)`);
    console.log(summaryLine(0, 1));
    return NO_RESULTS;
  }
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as SuiteResults;
  // The editor's logs first: CI shows the tail of the output, where the failures must be.
  if (results.failed > 0) onFailure();
  console.log(`\n${heading}:`);
  for (const test of results.tests) {
    const mark = test.state === 'passed' ? '✔' : test.state === 'failed' ? '✘' : '-';
    console.log(`  ${mark} ${test.title}${test.durationMs > 200 ? ` (${test.durationMs} ms)` : ''}`);
    if (test.error) console.log(test.error.replace(/^/gm, '      '));
  }
  if (results.passed + results.failed === 0) {
    console.log(`${heading}: the suite ran no test`);
    console.log(summaryLine(0, 1));
    return NO_RESULTS;
  }
  console.log(summaryLine(results.passed, results.failed, results.pending));
  const failures = results.tests
    .filter((test) => test.state === 'failed')
    .map((test) => {
      const [message = '', screen = ''] = (test.error ?? '').split('--- on screen ---');
      return `${test.title}: ${message.split('\n')[0]}${screen ? `\n      on screen: ${screen.trim().replace(/\n/g, ' · ')}` : ''}`;
    });
  return { passed: results.passed, failed: results.failed, pending: results.pending, failures };
}
