/**
 * Issue 36, item 2: what decides whether web_fetch runs — the addresses it refuses, the policy's
 * `network` section (which hosts run without asking, which may reach private addresses, and
 * that only the user's own policy can grant the latter), and Workspace Trust.
 */
import assert from 'node:assert/strict';
import { parseAgentPolicy } from '../../../../src/core/policy/agent-policy';
import { mergePolicies } from '../../../../src/core/policy/merge-policy';
import { layerPolicies } from '../../../../src/core/policy/policy-layers';
import { toolPolicyFrom } from '../../../../src/core/policy/policy-rules';
import { ConversationParts } from '../../../../src/core/session/conversation-parts';
import { blockedAddressReason } from '../../../../src/core/web/blocked-addresses';
import { checkFetchUrl, urlHost } from '../../../../src/core/web/web-urls';
import { makeTool } from '../../../adversarial/web-fetch-servers';

const clock = { now: () => Date.now() };

describe('web_fetch policy and address rules', () => {
  it('refuses every kind of address that is not on the public internet', () => {
    const refused: Array<[string, RegExp]> = [
      ['127.0.0.1', /loopback/],
      ['127.255.0.9', /loopback/],
      ['10.0.0.1', /private/],
      ['172.16.0.1', /private/],
      ['172.31.255.255', /private/],
      ['192.168.1.1', /private/],
      ['169.254.169.254', /metadata/],
      ['169.254.10.1', /link-local/],
      ['0.0.0.0', /unspecified/],
      ['100.64.0.1', /carrier-grade/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /reserved/],
      ['::', /unspecified/],
      ['::1', /loopback/],
      ['::ffff:127.0.0.1', /loopback address \(inside an IPv6 address\)/],
      ['::ffff:7f00:1', /loopback/],
      ['::ffff:a9fe:a9fe', /metadata/],
      ['64:ff9b::10.0.0.1', /private address \(inside/],
      ['64:ff9b::a9fe:a9fe', /metadata/],
      ['2002:7f00:1::', /loopback address \(inside/],
      ['fc00::1', /unique local/],
      ['fd12:3456::1', /unique local/],
      ['fd00:ec2::254', /metadata/],
      ['fe80::1', /link-local/],
      ['fe80::1%eth0', /link-local/],
      ['ff02::1', /multicast/],
      ['::127.0.0.1', /IPv4-compatible/],
      ['2001:db8::1', /documentation/],
      ['not-an-ip', /not an IP/],
    ];
    for (const [address, words] of refused) assert.match(blockedAddressReason(address) ?? 'allowed', words, address);
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::6810:85e5', '64:ff9b::808:808'])
      assert.equal(blockedAddressReason(address), undefined, address);
  });

  it('reads every spelling of an address as the address it is', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://017700000001/', 'http://127.1/'])
      assert.equal(urlHost((checkFetchUrl(url) as { url: URL }).url), '127.0.0.1', url);
    assert.equal(urlHost((checkFetchUrl('http://[::ffff:127.0.0.1]/') as { url: URL }).url), '::ffff:7f00:1');
    assert.equal(urlHost((checkFetchUrl('http://DOCS.Example./') as { url: URL }).url), 'docs.example');
  });

  it('runs without asking only for hosts in network.fetch_allow', () => {
    const policy = toolPolicyFrom(() => ({ network: { fetch_allow: ['docs.*', '*.python.org'] } }));
    const call = (fetchHost: string) =>
      policy.evaluate({ toolName: 'web_fetch', input: {}, readOnly: false, needsApproval: true, fetchHost });
    assert.deepEqual(call('docs.python.org'), {
      action: 'allow',
      source: 'policy',
      rule: 'network.fetch_allow "docs.*"',
    });
    assert.deepEqual(call('peps.python.org'), {
      action: 'allow',
      source: 'policy',
      rule: 'network.fetch_allow "*.python.org"',
    });
    assert.deepEqual(call('evil.example'), { action: 'ask' });
    // require_for and deny still win.
    const strict = toolPolicyFrom(() => ({
      network: { fetch_allow: ['*'] },
      approvals: { require_for: ['web_fetch'] },
    }));
    assert.deepEqual(
      strict.evaluate({ toolName: 'web_fetch', input: {}, readOnly: false, needsApproval: true, fetchHost: 'a.b' }),
      { action: 'ask' },
    );
    const denied = toolPolicyFrom(() => ({ network: { fetch_allow: ['*'] }, tools: { deny: ['web_fetch'] } }));
    assert.equal(
      denied.evaluate({ toolName: 'web_fetch', input: {}, readOnly: false, needsApproval: true, fetchHost: 'a.b' })
        .action,
      'deny',
    );
  });

  it("grants private addresses from the user's policy only; a workspace can narrow fetch_allow, not widen it", () => {
    const fromWorkspace = mergePolicies(undefined, { network: { fetch_private: ['*'], fetch_allow: ['docs.*'] } });
    assert.deepEqual(fromWorkspace?.network, { fetch_allow: ['docs.*'] });
    const merged = mergePolicies(
      { network: { fetch_private: ['intranet.corp', 'localhost'], fetch_allow: ['*.python.org'] } },
      { network: { fetch_private: ['localhost', 'evil.*'], fetch_allow: ['docs.python.org', '*'] } },
    );
    assert.deepEqual(merged?.network, { fetch_allow: ['docs.python.org'], fetch_private: ['localhost'] });
    const userOnly = mergePolicies({ network: { fetch_private: ['localhost'] } }, { tools: { deny: ['bash'] } });
    assert.deepEqual(userOnly?.network, { fetch_private: ['localhost'] });
    // Under a team that lists hosts, only those stay.
    const layered = layerPolicies({
      team: { network: { fetch_allow: ['*.corp.example'] } },
      user: { network: { fetch_allow: ['docs.corp.example', 'pypi.org'], fetch_private: ['wiki.corp.example'] } },
    });
    assert.deepEqual(layered?.network, { fetch_allow: ['docs.corp.example'], fetch_private: ['wiki.corp.example'] });
  });

  it('accepts the network section in agent.yaml and points at mistakes in it', () => {
    const good = parseAgentPolicy('network:\n  fetch_allow: ["docs.*", "*.python.org"]\n');
    assert.deepEqual(good.policy?.network, { fetch_allow: ['docs.*', '*.python.org'] });
    const bad = parseAgentPolicy('network:\n  fetch_allow: docs.*\n  fetch_everything: true\n');
    assert.equal(bad.policy, undefined);
    assert.ok(bad.problems.some((problem) => problem.message.startsWith('network.fetch_allow:') && problem.line === 1));
    assert.ok(bad.problems.some((problem) => /fetch_everything/.test(problem.message) && problem.line === 2));
  });

  it('is not offered in an untrusted workspace (it reaches the network), and is in a trusted one', () => {
    const tool = makeTool(undefined);
    const parts = (trusted: boolean) =>
      new ConversationParts({ clock, isTrusted: () => trusted }, false, [], () => false, 0);
    assert.equal(parts(false).offerTool(tool), false);
    assert.equal(parts(true).offerTool(tool), true);
    assert.equal(tool.needsApproval, true, 'it asks unless a rule allows the host');
  });
});
