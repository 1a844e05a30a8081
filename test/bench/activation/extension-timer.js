// Times extensions' activation inside VS Code's extension host: the load of the extension's
// main module (require, compile, run) plus its activate() call, as VS Code's own figure counts
// them ("Developer: Show Running Extensions": code loading + activate call), but without the
// waits VS Code's figure includes (other extensions loading meanwhile, localisation files).
//
// It is loaded with `--require` (NODE_OPTIONS) into every process code-server starts and acts
// only in the extension host, before any extension loads: an extension cannot do this, because
// the built-in ones (Git, activated by "*") load before any installed extension runs.
//
// OPENAGENT_ACTIVATION_TIMER_LOG: the file records are appended to, one JSON object a line.
// OPENAGENT_ACTIVATION_TIMER_TARGETS: a JSON file, [{ id, dir }]: the extensions to time (their folders).
// OPENAGENT_ACTIVATION_TIMER_PROFILE: a folder; when set, the first target's load and
//   activate() are recorded with V8's CPU profiler into <id>.cpuprofile (slower: not timed runs),
//   and globalThis.openAgentBenchProfiler() starts the same profiler for others (stop(name)).
'use strict';
/* global Buffer */

if (process.argv.includes('--type=extensionHost') && process.env.OPENAGENT_ACTIVATION_TIMER_LOG) install();

function install() {
  const fs = require('node:fs');
  const path = require('node:path');
  const Module = require('node:module');
  const { performance } = require('node:perf_hooks');

  const logFile = process.env.OPENAGENT_ACTIVATION_TIMER_LOG;
  const targets = JSON.parse(fs.readFileSync(process.env.OPENAGENT_ACTIVATION_TIMER_TARGETS, 'utf8')).map((target) => ({
    id: target.id,
    dir: fs.realpathSync(target.dir) + path.sep,
    loaded: false,
  }));
  const profileDir = process.env.OPENAGENT_ACTIVATION_TIMER_PROFILE;
  // The first-conversation test extension profiles its span with the same profiler.
  if (profileDir) globalThis.openAgentBenchProfiler = startProfiler;
  const write = (record) => fs.appendFileSync(logFile, `${JSON.stringify(record)}\n`);

  // Every module compiled while a target loads or activates (synchronous, so nothing else runs
  // in between), and after that every module compiled from a target's folder: what it loads later.
  let recording;
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    const bytes = Buffer.byteLength(content);
    if (recording) recording.push({ file: filename, bytes });
    else {
      const owner = targets.find((target) => target.loaded && filename.startsWith(target.dir));
      if (owner) write({ kind: 'later', id: owner.id, file: filename.slice(owner.dir.length), bytes, at: now() });
    }
    return compile.apply(this, arguments);
  };

  const load = Module._load;
  Module._load = function (request, parent) {
    // VS Code requires an extension's main module by its absolute path, from its own code.
    const target =
      typeof request === 'string' && path.isAbsolute(request)
        ? targets.find((candidate) => !candidate.loaded && within(request, candidate.dir) && !inside(parent, candidate))
        : undefined;
    if (!target) return load.apply(this, arguments);
    target.loaded = true;
    const files = [];
    const profiler = profileDir && targets[0] === target ? startProfiler() : undefined;
    // One span of the target's own work: the modules compiled meanwhile, wall and CPU time.
    const measure = (run) => {
      recording = files;
      const start = now();
      const cpu = process.cpuUsage();
      try {
        return { value: run(), start, ms: now() - start, cpuMs: cpuMs(cpu) };
      } finally {
        recording = undefined;
      }
    };
    const loaded = measure(() => load.apply(this, arguments));
    const exports = loaded.value;
    const recordOf = (activated) => ({
      kind: 'activation',
      id: target.id,
      loadMs: loaded.ms,
      loadCpuMs: loaded.cpuMs,
      activateMs: activated ? activated.ms : 0,
      activateCpuMs: activated ? activated.cpuMs : 0,
      files: relative(files, target),
      at: loaded.start,
      ...(activated ? { vscode: vscodeMarks(target.id) } : {}),
    });
    if (!exports || typeof exports.activate !== 'function') {
      profiler?.stop(target.id);
      write(recordOf(undefined));
      return exports;
    }
    const activate = exports.activate;
    // VS Code calls `activate` (and later `deactivate`) on the object require returned.
    return Object.create(exports, {
      activate: {
        value: function () {
          const activated = measure(() => activate.apply(this, arguments));
          const result = activated.value;
          const activateStart = activated.start;
          profiler?.stop(target.id);
          const record = recordOf(activated);
          if (result && typeof result.then === 'function') {
            // An async activate(): VS Code's figure leaves its awaited part out; it is kept apart.
            Promise.resolve(result).then(
              () => write({ ...record, resolvedMs: now() - activateStart }),
              () => write({ ...record, resolvedMs: now() - activateStart, failed: true }),
            );
          } else write(record);
          return result;
        },
      },
    });
  };

  function now() {
    return performance.now();
  }

  /**
   * CPU time the extension host spent since `start` (all its threads: the garbage collector's
   * helpers count, as they work for the load). On a machine shared with other busy processes,
   * wall time also counts the waits for a core; CPU time does not.
   */
  function cpuMs(start) {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  }

  /** Whether the module `request` names lies in `dir` (real paths: the editor may reach it through a link). */
  function within(request, dir) {
    try {
      return (fs.realpathSync(path.dirname(request)) + path.sep).startsWith(dir);
    } catch {
      return false;
    }
  }

  function inside(parent, target) {
    return Boolean(parent && parent.filename && parent.filename.startsWith(target.dir));
  }

  function relative(files, target) {
    return files.map(({ file, bytes }) => ({
      file: file.startsWith(target.dir) ? file.slice(target.dir.length) : file,
      bytes,
    }));
  }

  /**
   * VS Code's own marks for the extension (milliseconds since the epoch), and when activate()
   * returned (called right after it returns).
   */
  function vscodeMarks(id) {
    const marks = globalThis.MonacoPerformanceMarks?.getMarks?.() ?? [];
    const at = (name) => marks.find((mark) => mark.name === `code/extHost/${name}/${id}`)?.startTime;
    const willLoad = at('willLoadExtensionCode');
    const didLoad = at('didLoadExtensionCode');
    const willActivate = at('willActivateExtension');
    return {
      willLoadAt: willLoad,
      activatedAt: performance.timeOrigin + performance.now(),
      loadMs: willLoad !== undefined && didLoad !== undefined ? didLoad - willLoad : undefined,
      loadedToActivateMs: didLoad !== undefined && willActivate !== undefined ? willActivate - didLoad : undefined,
    };
  }

  function startProfiler() {
    const inspector = require('node:inspector');
    const session = new inspector.Session();
    session.connect();
    // The in-process session answers synchronously, so the profile covers exactly what follows.
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval: 100 });
    session.post('Profiler.start');
    return {
      stop(id) {
        session.post('Profiler.stop', (error, result) => {
          if (!error) fs.writeFileSync(path.join(profileDir, `${id}.cpuprofile`), JSON.stringify(result.profile));
          session.disconnect();
        });
      },
    };
  }
}
