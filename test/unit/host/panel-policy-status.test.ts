import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { AgentPolicy } from '../../../src/core/policy/agent-policy';
import {
  explainPolicy,
  layerPolicies,
  type PolicyDecision,
  type PolicyLayers,
} from '../../../src/core/policy/policy-layers';
import { PanelController, type PanelSession } from '../../../src/host/panel/panel-controller';
import { describePolicyStatus, policyStatusSource, type TeamView } from '../../../src/host/panel/policy-status';
import { hostToPanelSchema, MAX_POLICY_RULES, type HostToPanel } from '../../../src/protocol/messages';

const CONNECTED: TeamView = {
  status: {
    state: 'connected',
    policy: { version: 3, changedBy: 'lead@example.com', changedAt: Date.UTC(2025, 4, 1, 9, 30) },
  },
  identity: { member: 'alice@example.com', repository: 'github.com/acme/app' },
  policyVersion: { version: 3, changedBy: 'lead@example.com', changedAt: Date.UTC(2025, 4, 1, 9, 30) },
};

const LAYERS: PolicyLayers = {
  team: { tools: { deny: ['bash'] }, budget: { team_daily_usd: 100, daily_usd: 20 } } satisfies AgentPolicy,
  user: { budget: { daily_usd: 10 } } satisfies AgentPolicy,
  workspace: { tools: { deny: ['web_fetch'] }, sandbox: 'required' } satisfies AgentPolicy,
};

const parse = (status: object) => hostToPanelSchema.parse({ type: 'policy_status', ...status });

describe('developer panel policy status', () => {
  it('says which layer decided each rule, naming the team policy’s version and author', () => {
    const decisions = explainPolicy(LAYERS, layerPolicies(LAYERS));
    const status = describePolicyStatus(decisions, CONNECTED);
    const byRule = Object.fromEntries(status.rules.map((rule) => [rule.rule, rule.decidedBy]));
    assert.equal(byRule['tools.deny "bash"'], 'the team policy (v3, by lead@example.com)');
    assert.equal(byRule['tools.deny "web_fetch"'], '.openagent/agent.yaml');
    assert.equal(byRule['budget.daily_usd: 10'], 'your openagent.policy setting');
    assert.equal(byRule['budget.team_daily_usd: 100'], 'the team policy (v3, by lead@example.com)');
    assert.equal(byRule['sandbox: required'], '.openagent/agent.yaml');
    assert.equal(status.total, status.rules.length);
    assert.deepEqual(status.team, {
      state: 'connected',
      text: 'Connected to the team database as alice@example.com in github.com/acme/app: team policy v3, set by lead@example.com on 2025-05-01 09:30 UTC.',
    });
    parse(status);
  });

  it('has no team line when no team is configured, and words each team state', () => {
    const none = describePolicyStatus([{ rule: 'tools.deny "bash"', layer: 'user' }], undefined);
    assert.equal('team' in none, false);
    assert.deepEqual(none.rules, [
      { rule: 'tools.deny "bash"', layer: 'user', decidedBy: 'your openagent.policy setting' },
    ]);
    parse(none);

    const unreachable = describePolicyStatus([{ rule: 'tools.deny "bash"', layer: 'team' }], {
      status: { state: 'unreachable', reason: 'connect ECONNREFUSED 127.0.0.1:5432', since: 0 },
      identity: { member: 'alice@example.com' },
    });
    assert.equal(unreachable.team?.state, 'unreachable');
    assert.match(unreachable.team!.text, /unreachable \(connect ECONNREFUSED 127\.0\.0\.1:5432\)/);
    assert.match(unreachable.team!.text, /as alice@example\.com under the team policy kept from last time/);
    assert.match(unreachable.team!.text, /wait in the outbox/);
    assert.equal(unreachable.rules[0]?.decidedBy, 'the team policy', 'no version read: the layer alone');
    parse(unreachable);

    const connecting = describePolicyStatus([], { status: { state: 'connecting' } });
    assert.deepEqual(connecting.team, { state: 'connecting', text: 'Connecting to the team database…' });
    const noPolicy = describePolicyStatus([], { status: { state: 'connected' }, identity: { member: 'bob' } });
    assert.equal(noPolicy.team?.text, 'Connected to the team database as bob: no team policy set yet.');
  });

  it('stays within what the protocol accepts however long the policy or the error is', () => {
    const decisions = Array.from({ length: MAX_POLICY_RULES + 20 }, (_, index) => ({
      rule: `tools.bash.deny "${'x'.repeat(600)}${index}"`,
      layer: 'workspace' as const,
    }));
    const status = describePolicyStatus(decisions, {
      status: { state: 'unreachable', reason: 'e'.repeat(5_000), since: 0 },
    });
    assert.equal(status.rules.length, MAX_POLICY_RULES);
    assert.equal(status.total, MAX_POLICY_RULES + 20);
    assert.ok(status.rules.every((rule) => rule.rule.length <= 500 && rule.rule.endsWith('…')));
    assert.ok(status.team!.text.length <= 2_000);
    parse(status);
    assert.throws(() => parse({ ...status, rules: [...status.rules, status.rules[0]] }));
    assert.throws(() => parse({ rules: [{ rule: 'x', layer: 'org', decidedBy: 'x' }], total: 1 }));
  });

  it('is posted when the panel is ready and again only when something changed', () => {
    const posts: HostToPanel[] = [];
    const receivers = new Set<(message: unknown) => void>();
    const webview = {
      postMessage: (message: HostToPanel) => (posts.push(structuredClone(message)), Promise.resolve(true)),
      onDidReceiveMessage: (listener: (message: unknown) => void) => (
        receivers.add(listener),
        { dispose: () => receivers.delete(listener) }
      ),
    } as unknown as vscode.Webview;
    const session = {
      onEvent: () => () => undefined,
      onReset: () => () => undefined,
      history: [],
      switches: { onChange: () => () => undefined, autoApprove: false, tracing: false, teams: false },
      planModeActive: false,
      setPlanMode: () => undefined,
    } as unknown as PanelSession;

    let decisions: PolicyDecision[] = [{ rule: 'tools.deny "bash"', layer: 'workspace' }];
    const teamNow: { view?: TeamView } = {};
    const policyListeners = new Set<() => void>();
    const teamListeners = new Set<() => void>();
    const subscribe = (set: Set<() => void>) => (listener: () => void) => (
      set.add(listener),
      { dispose: () => set.delete(listener) }
    );
    const source = policyStatusSource(
      { decisions: () => decisions, onDidChange: subscribe(policyListeners) },
      { view: () => teamNow.view, onDidChangeStatus: subscribe(teamListeners) },
    );
    const fire = (set: Set<() => void>) => set.forEach((listener) => listener());
    const policyPosts = () => posts.filter((post) => post.type === 'policy_status');

    const panel = new PanelController(webview, session, undefined, undefined, undefined, source);
    fire(policyListeners);
    assert.equal(policyPosts().length, 0, 'nothing before the ready handshake');
    receivers.forEach((receive) => receive({ type: 'panel_ready' }));
    assert.deepEqual(policyPosts(), [
      {
        type: 'policy_status',
        rules: [{ rule: 'tools.deny "bash"', layer: 'workspace', decidedBy: '.openagent/agent.yaml' }],
        total: 1,
      },
    ]);

    fire(policyListeners);
    assert.equal(policyPosts().length, 1, 'a re-read that changed nothing posts nothing');
    decisions = [...decisions, { rule: 'budget.daily_usd: 5', layer: 'user' }];
    fire(policyListeners);
    assert.equal(policyPosts().at(-1)?.type === 'policy_status' && policyPosts().at(-1)?.total, 2);

    teamNow.view = CONNECTED;
    fire(teamListeners);
    const last = policyPosts().at(-1);
    assert.equal(last?.type === 'policy_status' && last.team?.state, 'connected');

    // Shown again after being hidden: the webview starts blank, so it gets the status again.
    receivers.forEach((receive) => receive({ type: 'panel_ready' }));
    assert.equal(policyPosts().length, 4);

    panel.dispose();
    assert.equal(policyListeners.size + teamListeners.size, 0, 'the panel stops listening when it closes');
  });
});
