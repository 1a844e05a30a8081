/**
 * Class 5 of the adversarial suite: a command that shows as something else. Whatever the
 * payload hides behind (a carriage return that overprints the line, escape sequences that
 * clear or move the cursor, bidi overrides that reverse text, invisible characters), the
 * command is never approved without asking — not by approve-all, an allow rule, an
 * auto_approve policy or "Always This Session" — and every question shows it escaped.
 */
import assert from 'node:assert/strict';
import { approvalPreview } from '../../src/core/policy/approval-preview';
import { RiskProbe } from '../fixtures/call-risk';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { sessionRuleKey } from '../../src/core/policy/session-rules';
import { analyseCommand } from '../../src/core/policy/shell-command';
import { visibleText } from '../../src/core/text/visible-text';

const HARMLESS = 'git status';
const PAYLOAD = 'touch PROOF_spoof';

/** Ways to make `PAYLOAD` run while `HARMLESS` is what a terminal or a notification shows. */
const SPOOFS: Array<[string, string]> = [
  ['a carriage return overprinting the line', `${PAYLOAD}; ${HARMLESS} #\r${HARMLESS}          `],
  ['an escape that clears the line', `${PAYLOAD}\x1b[2K\r${HARMLESS}`],
  ['cursor up and erase', `${PAYLOAD};\x1b[1A\x1b[K${HARMLESS}`],
  ['an OSC sequence', `${PAYLOAD}; \x1b]0;title\x07${HARMLESS}`],
  ['backspaces over the payload', `${PAYLOAD}${'\x08'.repeat(PAYLOAD.length)}${HARMLESS}`],
  ['a right-to-left override', `${HARMLESS} \u202e; ${PAYLOAD.split('').reverse().join('')}`],
  ['a right-to-left isolate', `${HARMLESS}\u2067; ${PAYLOAD}\u2069`],
  ['a zero-width space in the program name', `gi\u200bt status; ${PAYLOAD}`],
  ['a zero-width joiner', `${HARMLESS}\u200d; ${PAYLOAD}`],
  ['a byte-order mark', `\ufeff${PAYLOAD}`],
  ['a NUL byte', `${HARMLESS}\0; ${PAYLOAD}`],
  ['a vertical tab', `${HARMLESS}\x0b${PAYLOAD}`],
  ['a form feed', `${HARMLESS}\x0c${PAYLOAD}`],
  ['a C1 control (CSI as one byte)', `${PAYLOAD}\x9b2K${HARMLESS}`],
  ['DEL', `${PAYLOAD}\x7f${HARMLESS}`],
  ['an Arabic letter mark', `${HARMLESS}\u061c; ${PAYLOAD}`],
  ['a word joiner', `${HARMLESS}\u2060; ${PAYLOAD}`],
];

const ALLOW_EVERYTHING = toolPolicyFrom(
  () =>
    parseAgentPolicy('tools:\n  bash:\n    allow: ["*", "git *", "touch *"]\napprovals:\n  auto_approve: [bash]\n')
      .policy,
);

const probe = new RiskProbe();

describe('adversarial: approvals that show one command and run another', () => {
  for (const [name, command] of SPOOFS) {
    describe(name, () => {
      it('is marked as able to hide what it does (or cannot be analysed at all)', () => {
        const analysis = analyseCommand(command);
        assert.ok(!analysis.ok || analysis.hidden, JSON.stringify(analysis));
      });

      it('is still denied when a segment is denied: deny wins over asking', () => {
        const verdict = toolPolicyFrom(
          () => parseAgentPolicy('tools:\n  bash:\n    deny: ["touch *"]\n').policy,
        ).evaluate({
          toolName: 'bash',
          input: { command },
          command,
          readOnly: false,
          needsApproval: true,
        });
        const analysis = analyseCommand(command);
        // Where the payload is a readable segment, the deny rule sees it.
        if (analysis.ok && analysis.segments.some((segment) => segment.program === 'touch'))
          assert.equal(verdict.action, 'deny');
        else assert.notEqual(verdict.action, 'allow');
      });

      it('is asked about with approve-all on, an allow-everything policy, and offers no "Always"', async () => {
        assert.equal(await probe.asksAnyway('bash', { command }), true);
        assert.equal(await probe.asksAnyway('background_run', { command }), true);
        const { outcome } = await probe.outcome('bash', { command }, { policy: ALLOW_EVERYTHING, autoApprove: true });
        assert.notEqual(outcome, 'ran');
        assert.equal(sessionRuleKey({ toolName: 'bash', risk: await probe.command(command) }), undefined);
      });

      it('shows every hiding character escaped on the terminal', async () => {
        const lines = await approvalPreview(
          {
            conversationId: 'c',
            toolCallId: 't',
            toolName: 'bash',
            input: { command },
            summary: `Run ${command}`,
            argumentsHash: 'h',
          } as never,
          undefined,
        );
        const shown = lines.join('\n');
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(shown, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u);
        assert.ok(shown.includes('touch') || shown.includes('\\u'), shown);
        assert.equal(
          shown,
          command
            .split('\n')
            .map((line, index) => `${index ? '  ' : '$ '}${visibleText(line)}`)
            .join('\n'),
        );
      });
    });
  }

  it('a plain command is still analysed and allowed as before', async () => {
    assert.equal(analyseCommand(HARMLESS).ok, true);
    assert.equal(await probe.asksAnyway('bash', { command: HARMLESS }), false);
    assert.equal(analyseCommand('printf "a\\tb"\n\n').ok, true, 'tabs and trailing newlines are ordinary');
  });
});
