/**
 * Plan mode (SPEC 3), per conversation: while it is on, only read-only tools and `present_plan`
 * are offered. The agent investigates, then presents a plan; the user approving it (the usual
 * approval notification) leaves plan mode, and the agent carries the plan out in the same run.
 * Each switch is an event for the surfaces and a note the model reads at its next turn.
 */
import { z } from 'zod';
import { defineTool, type AnyTool } from '../tools/tool';
import type { AgentEventBody } from '../events/events';

export const PRESENT_PLAN = 'present_plan';

type Report = (body: Extract<AgentEventBody, { type: 'plan_mode' }>) => void;

export class PlanMode {
  private notes: string[] = [];

  constructor(
    private on: boolean,
    private readonly report: Report,
  ) {
    if (on) this.notes.push(ENTERED);
  }

  get active(): boolean {
    return this.on;
  }

  set(on: boolean, reason: 'user' | 'plan_approved'): void {
    if (on === this.on) return;
    this.on = on;
    // An approved plan is answered in the tool result; a switch by the user needs telling.
    if (reason === 'user') this.notes.push(on ? ENTERED : LEFT);
    this.report({ type: 'plan_mode', active: on, reason });
  }

  /** Whether `tool` is offered now: everything outside plan mode; read-only tools and present_plan in it. */
  offers(tool: AnyTool): boolean {
    if (tool.name === PRESENT_PLAN) return this.on;
    return !this.on || tool.readOnly;
  }

  /** An inbox for the loop: plan mode switched since the model last looked. */
  readonly drainNotes = (): string[] => {
    const notes = this.notes;
    this.notes = [];
    return notes;
  };

  /** The tool the agent presents its plan with; running it means the user approved. */
  tool(): AnyTool {
    return defineTool({
      name: PRESENT_PLAN,
      description:
        'Plan mode only: present your plan for the user to approve — the goal, the files you will change and how, ' +
        'and how you will verify it, as short markdown steps. Approval leaves plan mode and you carry the plan out; ' +
        'a denial means revise it (ask what to change if unclear).',
      inputSchema: z.object({ plan: z.string().min(1).max(50_000).describe('The plan, in markdown.') }),
      readOnly: false,
      needsApproval: true,
      // Approving a plan is reading it: no "Always", auto-approve, --yes or policy answers for the user.
      traits: { asksEveryTime: () => 'a plan is always shown to you before it is carried out' },
      summarize: (input) => `carry out its plan (${countSteps(input.plan)})`,
      execute: async () => {
        this.set(false, 'plan_approved');
        return 'The user approved the plan. Plan mode is off: carry the plan out now, step by step, and verify it.';
      },
    });
  }
}

const ENTERED =
  '[Plan mode is on: you can read, search and navigate the code but not change anything. ' +
  'Investigate, then call present_plan with your plan for the user to approve.]';
const LEFT = '[Plan mode is off: you may edit files and run commands again.]';

function countSteps(plan: string): string {
  const steps = plan.split('\n').filter((line) => /^\s*(?:\d+[.)]|[-*])\s+/.test(line)).length;
  return steps > 0 ? `${steps} step${steps === 1 ? '' : 's'}` : `${plan.length} characters`;
}
