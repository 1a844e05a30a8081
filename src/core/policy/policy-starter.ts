/** The commented starter `.openagent/agent.yaml` that "Open Agent Policy" creates (SPEC 4.3). */
export const POLICY_STARTER = `# OpenAgent policy for this workspace (SPEC 4.3). Honoured only in trusted workspaces.
# Mistakes show in the Problems view, and a file with mistakes is not applied. model_policy,
# tools, tools.bash, approvals and budget are applied; memory.scope is checked, not applied yet.
# Your own defaults (the openagent.policy setting) apply too: deny lists and budgets add up.
# Remove the "# " in front of the lines you want.
#
# model_policy:
#   default: anthropic/claude-sonnet-4-6
#   routes:
#     - { match: { task: compaction }, model: anthropic/claude-haiku-4-5 }
#     - { match: { task: subagent }, model: ollama/qwen3-coder }
# tools:
#   allow: [read_file, list_files, search_files, edit_file, bash, "mcp__github__*"]
#   deny: [background_run]
#   bash:
#     allow: ["npm test", "git status", "git diff*"]
#     deny: ["git push*", "rm -rf*", "curl*"]
# approvals:
#   require_for: [edit_file, bash, "mcp__*"]
#   auto_approve: [read_only]
# budget:
#   per_conversation_usd: 2
#   daily_usd: 10
#   monthly_usd: 50
#   on_exceeded: block
# memory:
#   scope: workspace
`;
