/**
 * Where the time of a V8 CPU profile (.cpuprofile, as Chrome DevTools and `node --cpu-prof`
 * write it) goes: self time by file (a bundle, V8's own work such as "(garbage collector)") and
 * by function, largest first.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  name: string;
  selfMs: number;
}

export interface ProfileSummary {
  totalMs: number;
  byFile: ProfileShare[];
  byFunction: ProfileShare[];
}

function fileOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  return url.startsWith('node:') ? 'node (its module loader and built-ins)' : path.basename(url);
}

function functionOf(node: ProfileNode): string {
  const { url, functionName, lineNumber, columnNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  return `${functionName || '(anonymous)'} ${path.basename(url)}:${lineNumber + 1}:${columnNumber + 1}`;
}

function largest(totals: Map<string, number>, count: number): ProfileShare[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => ({ name, selfMs: micros / 1000 }));
}

export function summarizeProfile(file: string, count = 10): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  // Each sample stands for the time until the next one.
  profile.samples.forEach((id, index) => {
    const node = nodes.get(id);
    const micros = profile.timeDeltas[index + 1] ?? 0;
    if (!node || node.callFrame.functionName === '(idle)') return;
    total += micros;
    byFile.set(fileOf(node), (byFile.get(fileOf(node)) ?? 0) + micros);
    byFunction.set(functionOf(node), (byFunction.get(functionOf(node)) ?? 0) + micros);
  });
  return { totalMs: total / 1000, byFile: largest(byFile, count), byFunction: largest(byFunction, count) };
}
