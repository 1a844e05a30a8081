/**
 * Attacks on what decides whether web_fetch runs unasked (issue 36, item 2): host patterns of
 * `network.fetch_allow` against look-alike hosts (a suffix glued on, case, trailing dots,
 * internationalised look-alikes, the host hidden in user info or behind backslashes), and a
 * workspace policy trying to widen `fetch_allow` or grant itself `fetch_private`.
 */
import assert from 'node:assert/strict';
import { mergePolicies } from '../../src/core/policy/merge-policy';
import { layerPolicies } from '../../src/core/policy/policy-layers';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import type { AgentPolicy } from '../../src/core/policy/agent-policy';
import { summarizeFetch } from '../../src/core/tools/builtin/web-fetch';
import { makeTool } from './web-fetch-servers';

/** What the policy says of a web_fetch call of `url`, the host taken as the tool takes it. */
function verdict(policy: AgentPolicy | undefined, url: string): string {
  const tool = makeTool(policy);
  const parsed = tool.inputSchema.safeParse({ url });
  if (!parsed.success) return 'invalid';
  const fetchHost = tool.traits?.fetchHost?.(parsed.data);
  return toolPolicyFrom(() => policy).evaluate({
    toolName: 'web_fetch',
    input: parsed.data,
    readOnly: false,
    needsApproval: true,
    ...(fetchHost !== undefined ? { fetchHost } : {}),
  }).action;
}

describe('attacks on the web_fetch policy (adversarial)', () => {
  it('runs unasked only for hosts a pattern names, not for look-alikes', () => {
    const policy = { network: { fetch_allow: ['*.python.org', 'DOCS.Rust-Lang.org'] } };
    const cases: Array<[string, string]> = [
      ['https://docs.python.org/3/', 'allow'],
      ['https://DOCS.PYTHON.ORG./3/', 'allow'],
      ['https://docs.rust-lang.org/std/', 'allow'],
      ['https://python.org.evil.com/', 'ask'],
      ['https://evilpython.org/', 'ask'],
      ['https://docs.python.org.evil.com/', 'ask'],
      // Cyrillic о: punycode, which no ASCII pattern names.
      ['https://dоcs.python.org.evil/', 'ask'],
      ['https://pythоn.org/', 'ask'],
      // The host is 127.0.0.1 (user info is refused) or evil.com (a backslash ends the host).
      ['http://docs.python.org@evil.com/', 'invalid'],
      ['http://evil.com\\@docs.python.org/', 'ask'],
      ['http://evil.com\\.python.org/', 'ask'],
      ['http://evil.com%2f.python.org/', 'invalid'],
    ];
    for (const [url, expected] of cases) assert.equal(verdict(policy, url), expected, url);
    assert.match(summarizeFetch('https://pythоn.org/'), /xn--pythn-.*internationalised name/);
  });

  it('a workspace cannot widen fetch_allow past the user, nor grant fetch_private', () => {
    const user: AgentPolicy = { network: { fetch_allow: ['*.python.org'] } };
    const tries: AgentPolicy[] = [
      { network: { fetch_allow: ['*'] } },
      { network: { fetch_allow: ['*.org'] } },
      { network: { fetch_allow: ['*.python.org*'] } },
      { network: { fetch_allow: ['*python.org'] } },
      { network: { fetch_allow: ['*.PYTHON.org'] } },
      { network: { fetch_allow: ['evil.com', '*.python.org.evil.com'] } },
    ];
    for (const workspace of tries) {
      const merged = mergePolicies(user, workspace);
      for (const url of ['https://evil.com/', 'https://python.org.evil.com/', 'https://x.python.org.evil.com/'])
        assert.equal(verdict(merged, url), 'ask', `${JSON.stringify(workspace)} ${url}`);
    }
    for (const workspace of [
      { network: { fetch_private: ['*'] } },
      { network: { fetch_private: ['localhost'], fetch_allow: ['*'] } },
    ]) {
      assert.equal(mergePolicies(user, workspace)?.network?.fetch_private, undefined);
      assert.equal(mergePolicies(undefined, workspace)?.network?.fetch_private, undefined);
      const layered = layerPolicies({ team: undefined, user: undefined, workspace });
      assert.equal(layered?.network?.fetch_private, undefined, JSON.stringify(layered));
    }
  });
});
