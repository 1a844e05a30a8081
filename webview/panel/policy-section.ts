/**
 * The developer panel's Policy tab (SPEC 5a): the team database's state, and each rule in force
 * with the layer that decided it. The host words everything; it goes in here as text only.
 */
import type { HostToPanel } from '../../src/protocol/messages';
import { el, emptyNote } from './dom';

type PolicyStatus = Extract<HostToPanel, { type: 'policy_status' }>;

export function renderPolicy(status: PolicyStatus): Node[] {
  const team = status.team
    ? el('p', `policy-team team-${status.team.state}`, status.team.text)
    : el('p', 'policy-team team-none', 'No team database: the policy is this machine’s and this workspace’s.');
  team.dataset.state = status.team?.state ?? 'none';
  if (status.rules.length === 0)
    return [
      team,
      emptyNote(
        'No rules are set. Set them in .openagent/agent.yaml (Open Agent Policy), in the openagent.policy setting, or in the team policy.',
      ),
    ];
  const body = el('tbody');
  for (const rule of status.rules) {
    const row = el(
      'tr',
      'policy-rule',
      el('td', undefined, el('code', undefined, rule.rule)),
      el('td', undefined, rule.decidedBy),
    );
    row.dataset.layer = rule.layer;
    body.append(row);
  }
  const head = el('tr', undefined, el('th', undefined, 'Rule'), el('th', undefined, 'Decided by'));
  const hidden = status.total - status.rules.length;
  return [
    team,
    el('table', 'usage-table policy-table', el('thead', undefined, head), body),
    ...(hidden > 0 ? [emptyNote(`${hidden} more rule(s) are in force but not shown.`)] : []),
  ];
}
