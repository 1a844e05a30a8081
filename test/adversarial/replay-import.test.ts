/**
 * Hostile run exports (import-run, replay --check): files from a future format, cut short,
 * tampered with (a ref that does not hash, a ref twice, content a step needs left out), nested
 * 10,000 deep, 200 MB, a pipe or a link to /dev/zero in place of the file, paths that climb
 * out, and names with terminal escapes. Each is refused with words that say what is wrong, and
 * the store is as it was.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { contentOf } from '../../src/core/replay/content-hash';
import type { RunExport } from '../../src/core/replay/run-export';
import type { ToolStep } from '../../src/core/replay/recording';
import { runShareCommand } from '../../src/cli/run-share-command';
import { runReplayCommand } from '../../src/cli/replay-command';
import { openStore, tempDir } from '../unit/store/store-helpers';
import { recordAndExport, type RecordedExport } from '../unit/core/replay/export-harness';
import { runCli, tempFolder } from '../unit/cli/cli-helpers';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

describe('hostile run exports', function () {
  this.timeout(120_000);
  let run: RecordedExport;
  let folder: string;
  /** A store holding one imported run already: a refused import must leave it as it is. */
  let store: string;

  const exported = (): RunExport => JSON.parse(run.text) as RunExport;
  const write = (name: string, content: string | RunExport): string => {
    const file = path.join(folder, name);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const importFile = async (file: string) => {
    const stdout = capture();
    const stderr = capture();
    const code = await runShareCommand(
      'import-run',
      [file, '--store', store],
      {},
      {
        stdout: stdout.stream,
        stderr: stderr.stream,
      },
    );
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };
  const conversations = async () => {
    const opened = await openStore(store);
    const list = await opened.store.listConversations();
    const content = await opened.store.recordings.contentBytes();
    await opened.store.close();
    return { count: list.length, content: content.count };
  };
  const refused = async (file: string, message: RegExp) => {
    const before = await conversations();
    const ran = await importFile(file);
    assert.equal(ran.code, 1, ran.stdout + ran.stderr);
    assert.match(ran.stderr, message);
    assert.deepEqual(await conversations(), before, 'the store is as it was');
  };

  before(async () => {
    run = await recordAndExport();
    folder = tempFolder('hostile-exports');
    store = tempDir();
    const first = await importFile(write('good.json', run.text));
    assert.equal(first.code, 0, first.stderr);
  });

  it('refuses a file from a future format, by name', async () => {
    await refused(
      write('future.json', { ...exported(), version: 2 } as unknown as RunExport),
      /made by a newer OpenAgent; this one reads version 1/,
    );
    const recording = exported();
    (recording.recording.manifest as { format: number }).format = 7;
    await refused(write('future-recording.json', recording), /format 7, made by a newer OpenAgent/);
    await refused(write('other.json', '{"format":"something.else","version":1}'), /not an OpenAgent run export/);
  });

  it('refuses a truncated file', async () => {
    await refused(
      write('cut.json', run.text.slice(0, Math.floor(run.text.length / 2))),
      /damaged or cut short: .*Nothing was imported/,
    );
    await refused(write('empty.json', ''), /empty/);
    const binary = path.join(folder, 'binary.json');
    fs.writeFileSync(binary, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    await refused(binary, /damaged or cut short: it is not UTF-8/);
  });

  it('refuses content that does not hash to its ref, naming the ref', async () => {
    const changed = exported();
    const entry = changed.content.find(
      (candidate) => typeof candidate.value === 'string' && candidate.value.includes('hello'),
    )!;
    entry.value = (entry.value as string).replace('hello', 'HELLO');
    await refused(write('tampered.json', changed), new RegExp(`content ${entry.ref} does not hash to its ref`));
  });

  it('refuses a ref given twice', async () => {
    const twice = exported();
    twice.content.push(twice.content[0]!);
    await refused(write('twice.json', twice), new RegExp(`gives content ${twice.content[0]!.ref} twice`));
  });

  it('refuses a recording whose steps need content the file lacks, naming the step', async () => {
    const lacking = exported();
    const tool = lacking.recording.steps.find((step): step is ToolStep => step.kind === 'tool')!;
    lacking.content = lacking.content.filter((entry) => entry.ref !== tool.input);
    await refused(
      write('lacking.json', lacking),
      new RegExp(`lacks 1 piece of content: step ${tool.step}'s tool input`),
    );
  });

  it('refuses nesting 10,000 deep before parsing it', async () => {
    const deepText = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    // A real ref for it, so only the depth is wrong (JSON.stringify could not even write it).
    const ref = contentOf(JSON.parse(deepText)).ref;
    const text = run.text.replace('"content":[', `"content":[{"ref":"${ref}","value":${deepText}},`);
    assert.ok(text.length > run.text.length + 20_000);
    await refused(write('deep.json', text), /nests more than 256 levels deep/);
  });

  it('refuses a 200 MB file by its size, before reading it', async () => {
    const huge = path.join(folder, 'huge.json');
    const handle = fs.openSync(huge, 'w');
    fs.ftruncateSync(handle, 200 * 1024 * 1024);
    fs.closeSync(handle);
    await refused(huge, /is 200\.0 MiB, more than the 64\.0 MiB OpenAgent reads into memory/);
    fs.rmSync(huge);
  });

  it('refuses a named pipe and a link to /dev/zero: regular files only', async function () {
    if (process.platform === 'win32') this.skip();
    const pipe = path.join(folder, 'pipe.json');
    execFileSync('mkfifo', [pipe]);
    await refused(pipe, /is a named pipe \(FIFO\), not a file: an export is read only from a regular file/);
    const link = path.join(folder, 'zero.json');
    fs.symlinkSync('/dev/zero', link);
    await refused(link, /is a symbolic link, not a file/);
    // In a --check folder they are red rows, not waits.
    const checkFolder = tempFolder('hostile-check');
    execFileSync('mkfifo', [path.join(checkFolder, 'pipe.json')]);
    fs.symlinkSync('/dev/zero', path.join(checkFolder, 'zero.json'));
    const stdout = capture();
    const stderr = capture();
    const code = await runReplayCommand(
      'replay',
      ['--check', checkFolder],
      {},
      { stdout: stdout.stream, stderr: stderr.stream },
    );
    assert.equal(code, 1, stderr.text());
    assert.match(stdout.text(), /pipe\.json\s+refused: is a named pipe/);
    assert.match(stdout.text(), /zero\.json\s+refused: is a symbolic link/);
  });

  it('refuses tool steps naming paths that climb out or are absolute', async () => {
    for (const bad of ['../../.ssh/authorized_keys', '/etc/passwd', 'C:\\Windows\\win.ini', 'a/../../b', 'x\u0000y']) {
      const climbing = exported();
      const tool = climbing.recording.steps.find((step): step is ToolStep => step.kind === 'tool')!;
      tool.files = [{ path: bad, checkpointId: 'cp1' }];
      await refused(
        write('climbing.json', climbing),
        new RegExp(`Step ${tool.step} names the file .*(climbs out|is absolute|control characters)`),
      );
    }
  });

  it('shows control characters in names as escapes, never sends them to the terminal', async () => {
    const named = exported();
    named.conversation.title = 'evil\u001b[2J\u001b[31mred\rforged line';
    const ran = await importFile(write('named.json', named));
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(!ran.stdout.includes('\u001b') && !ran.stdout.includes('\r'), JSON.stringify(ran.stdout));
    assert.match(ran.stdout, /evil\\x1b\[2J\\x1b\[31mred\\rforged line \(imported\)/);
    // A file name in a --check table, through the real CLI.
    const checkFolder = tempFolder('hostile-names');
    fs.writeFileSync(path.join(checkFolder, 'evil\u001b[2J.json'), run.text);
    const checked = await runCli(['replay', '--check', checkFolder], { cwd: run.root });
    assert.ok(!checked.stdout.includes('\u001b'), JSON.stringify(checked.stdout));
    assert.match(checked.stdout, /evil\\x1b\[2J\.json/);
  });
});
