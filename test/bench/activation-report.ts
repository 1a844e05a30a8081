/**
 * Prints the activation benchmarks (activation-benchmarks.ts). `tsx test/bench/activation-report.ts`
 * runs them alone; OPENAGENT_BENCH_BASELINE_VSIX=path/to/other.vsix adds a baseline build,
 * measured in the same run, interleaved with this one; OPENAGENT_BENCH_ACTIVATION_RUNS sets the
 * runs per case (5); OPENAGENT_BENCH_ACTIVATION_PROFILE=0 leaves out the profiled runs.
 */
import { table } from './bench-table';
import type { ChatOpenTiming } from './activation/chat-open-timing';
import {
  ACTIVATION_RUNS,
  measureActivation,
  STARTUP_CASES,
  type ActivationProfile,
  type ActivationRun,
  type LoadedFile,
  type StartupCase,
} from './activation-benchmarks';
import { median } from './stats';

const ms = (value: number) => value.toFixed(0);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

function spread(values: number[]): string {
  return `${ms(Math.min(...values))} / ${ms(median(values))} / ${ms(Math.max(...values))}`;
}

const sum = (files: LoadedFile[]) => files.reduce((total, file) => total + file.bytes, 0);

export async function printActivationBenchmarks(): Promise<void> {
  console.log(
    `\nActivation in the real editor (code-server 4.100.3 = VS Code 1.100.3): the packaged extension in a fresh profile per run, ${ACTIVATION_RUNS} runs per case, interleaved; load of the main module + activate(), timed inside the extension host, beside the built-in Git extension in the same runs\n`,
  );
  const results = await measureActivation(
    (run, index, total) =>
      console.log(
        `  run ${index + 1}/${total} (${run.build}, ${run.startupCase}): OpenAgent ${ms(run.openagent.totalMs)} ms (CPU ${ms(run.openagent.totalCpuMs)}), Git ${ms(run.git.totalMs)} ms (CPU ${ms(run.git.totalCpuMs)}), first token ${ms(run.firstConversation.firstTokenMs)} ms`,
      ),
    process.env.OPENAGENT_BENCH_ACTIVATION_PROFILE !== '0',
  );
  const { runs, builds } = results;
  const of = (build: string, startupCase: StartupCase) =>
    runs.filter((run) => run.build === build && run.startupCase === startupCase);
  const cases = Object.keys(STARTUP_CASES) as StartupCase[];

  for (const clock of ['wall', 'cpu'] as const) {
    const total = (timing: ActivationRun['git']) => (clock === 'wall' ? timing.totalMs : timing.totalCpuMs);
    console.log(
      clock === 'wall'
        ? '\nWall-clock time (what VS Code shows; on a shared machine it includes waits for a core):\n'
        : '\nCPU time of the extension host over the same spans (waits for a busy core left out):\n',
    );
    console.log(
      table(
        [
          'case',
          'build',
          'OpenAgent min / median / max (ms)',
          'load (median)',
          'activate() (median)',
          'Git min / median / max (ms)',
          'OpenAgent ÷ Git (median of runs)',
          'target',
        ],
        cases.flatMap((startupCase) =>
          builds.map((build) => {
            const group = of(build.label, startupCase);
            const pick = (run: ActivationRun, part: 'load' | 'activate') =>
              clock === 'wall' ? run.openagent[`${part}Ms`] : run.openagent[`${part}CpuMs`];
            return [
              STARTUP_CASES[startupCase],
              build.label,
              spread(group.map((run) => total(run.openagent))),
              ms(median(group.map((run) => pick(run, 'load')))),
              ms(median(group.map((run) => pick(run, 'activate')))),
              spread(group.map((run) => total(run.git))),
              median(group.map((run) => total(run.openagent) / total(run.git))).toFixed(2),
              '≤ 0.50',
            ];
          }),
        ),
      ),
    );
  }

  console.log(
    "\nVS Code's own marks for OpenAgent (medians): its code-loading span (which also counts other extensions loading meanwhile) and the wait between the code loaded and activate() called\n",
  );
  console.log(
    table(
      ['case', 'build', "VS Code's code loading (ms)", 'loaded → activate() called (ms)'],
      cases.flatMap((startupCase) =>
        builds.map((build) => {
          const group = of(build.label, startupCase);
          const figure = (pick: (run: ActivationRun) => number | undefined) => {
            const values = group.map(pick).filter((value): value is number => value !== undefined);
            return values.length ? ms(median(values)) : 'n/a';
          };
          return [
            STARTUP_CASES[startupCase],
            build.label,
            figure((run) => run.openagent.vscodeLoadMs),
            figure((run) => run.openagent.loadedToActivateMs),
          ];
        }),
      ),
    ),
  );

  console.log('\nCode sizes: what the .vsix ships and what the editor compiled (measured in the runs above)\n');
  console.log(
    table(
      [
        'build',
        'dist/extension.js',
        'code loaded at activation',
        'modules',
        'loaded later by the first conversation',
        'extension JS in dist (all chunks)',
        'chat webview: first script (with what it loads after painting)',
        '.vsix',
        'target',
      ],
      builds.map((build) => {
        const group = runs.filter((run) => run.build === build.label);
        return [
          build.label,
          kb(build.sizes.extensionJs),
          kb(median(group.map((run) => sum(run.openagent.files)))),
          String(median(group.map((run) => run.openagent.files.length))),
          kb(median(group.map((run) => sum(run.later)))),
          kb(build.sizes.distJs),
          `${kb(build.sizes.chatJs)} (${kb(build.sizes.chatAllJs)})`,
          kb(build.sizes.vsix),
          'activation ≤ 400 KB; chat script ≤ 150 KB',
        ];
      }),
    ),
  );

  const baseline = builds.find((build) => build.label === 'baseline');
  console.log(
    "\nFirst conversation, started through the extension API right after activation: from startConversation('hello') to the first streamed text of the fake model's answer\n",
  );
  console.log(
    table(
      [
        'case',
        'build',
        'first token min / median / max (ms)',
        'extension host CPU to first token (median)',
        'to the run started (median)',
        'whole answer (median)',
        'target',
      ],
      cases.flatMap((startupCase) =>
        builds.map((build) => {
          const group = of(build.label, startupCase);
          const first = group.map((run) => run.firstConversation.firstTokenMs);
          const against = baseline && build !== baseline ? of(baseline.label, startupCase) : undefined;
          const change = (pick: (run: ActivationRun) => number) => {
            const difference = median(group.map(pick)) - median(against!.map(pick));
            return `${difference >= 0 ? '+' : ''}${ms(difference)}`;
          };
          const delta = against
            ? `${change((run) => run.firstConversation.firstTokenMs)} ms wall, ${change((run) => run.firstConversation.firstTokenCpuMs)} ms CPU vs baseline`
            : '';
          return [
            STARTUP_CASES[startupCase],
            build.label,
            spread(first),
            ms(median(group.map((run) => run.firstConversation.firstTokenCpuMs))),
            ms(median(group.map((run) => run.firstConversation.startedMs))),
            ms(median(group.map((run) => run.firstConversation.finishedMs))),
            delta ? `${delta} (≤ +50)` : 'within 50 ms of before',
          ];
        }),
      ),
    ),
  );

  printChatOpen(
    builds.map((build) => build.label),
    (label) => of(label, 'chat'),
    results.bareViews,
  );
  printProfiles(results.profiles);
  const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' ');
  console.log(`\nLoad average (1, 5, 15 min) before: ${load(results.loadBefore)}; after: ${load(results.loadAfter)}`);
}

/** Where the CPU time goes: self time by file and by function, in one profiled run per case. */
function printProfiles(profiles: ActivationProfile[]): void {
  for (const profile of profiles)
    for (const [what, summary] of [
      ['activation (load + activate())', profile.activation],
      ['the first conversation, to its first token', profile.firstConversation],
    ] as const) {
      console.log(
        `\nCPU profile of ${what}, ${STARTUP_CASES[profile.startupCase]} (this build, one more run under the profiler: ${ms(summary.totalMs)} ms sampled)\n`,
      );
      const share = (selfMs: number) => `${((selfMs / summary.totalMs) * 100).toFixed(0)} %`;
      console.log(
        table(
          ['file', 'self (ms)', 'share'],
          summary.byFile.map((entry) => [entry.name, entry.selfMs.toFixed(1), share(entry.selfMs)]),
        ),
      );
      console.log(
        '\n' +
          table(
            ['function', 'self (ms)', 'share'],
            summary.byFunction.map((entry) => [entry.name, entry.selfMs.toFixed(1), share(entry.selfMs)]),
          ),
      );
    }
}

/**
 * Click on OpenAgent in the activity bar to the chat's composer, and where the time went
 * (medians), beside a bare webview view timed the same way in runs of their own: the editor's floor.
 */
function printChatOpen(labels: string[], runsOf: (label: string) => ActivationRun[], bare: ChatOpenTiming[]): void {
  console.log(
    "\nClick on the activity bar icon (the mousedown) to the view's input taking typing (the first task after the first frame showing it, laid out and enabled), and where the time went (medians, ms); beside it, a bare webview view (a page with a textarea, nothing to load) opened instead of the chat in one more run per round, this build installed: what the editor itself takes\n",
  );
  const figure = (values: Array<number | undefined>) => {
    const known = values.filter((value): value is number => value !== undefined);
    return known.length ? ms(median(known)) : 'n/a';
  };
  const bareMedian = bare.length ? median(bare.map((timing) => timing.composerReadyMs)) : undefined;
  const row = (what: string, group: ChatOpenTiming[], target: string) => [
    what,
    group.length ? spread(group.map((timing) => timing.composerReadyMs)) : 'n/a',
    group.length && bareMedian
      ? (median(group.map((timing) => timing.composerReadyMs)) / bareMedian).toFixed(2)
      : 'n/a',
    figure(group.map((timing) => timing.webviewCreatedMs)),
    (['frameLoadedMs', 'workerReadyMs', 'pageFrameCreatedMs'] as const)
      .map((key) => figure(group.map((timing) => timing[key])))
      .join(' / '),
    (['activationStartedMs', 'activatedMs'] as const)
      .map((key) => figure(group.map((timing) => timing[key])))
      .join(' / '),
    figure(group.map((timing) => timing.contentWrittenMs)),
    figure(group.map((timing) => timing.composerPaintedMs)),
    figure(group.map((timing) => timing.firstPaintMs)),
    target,
  ];
  console.log(
    table(
      [
        'build, view',
        'input takes typing: min / median / max',
        '÷ bare view (medians)',
        'webview frame created',
        "its document loaded, its service worker ready, the page's frame made",
        'OpenAgent: code loading began, activate() returned',
        'page written (activated, view resolved)',
        'input painted',
        'first contentful paint',
        'target',
      ],
      [
        ...labels.map((label) =>
          row(
            `${label}, OpenAgent's chat`,
            runsOf(label).flatMap((run) => (run.chatOpen ? [run.chatOpen] : [])),
            '≤ 300 median',
          ),
        ),
        row('bare webview view', bare, ''),
      ],
    ),
  );
}

if (require.main === module) {
  printActivationBenchmarks().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
