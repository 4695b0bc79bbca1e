/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): where the process spent its own time, by
 * function and by package. `node --import tsx bench/profile.ts <file>` prints it; the bench's
 * --cpu-prof flag calls it on the profile it just took.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Rows shown per table: the head of the distribution is what matters. */
const TOP = 25;

/** node_modules/<package> (scoped too), our compiled code, node's own, or V8's pseudo-frames. */
function packageOf(url: string, name: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  if (url.includes('/dist/') || url.includes('/src/')) return 'gateway (src)';
  if (url.startsWith('node:') || (!url && !name.startsWith('('))) return 'node internals';
  return name || '(anonymous)';
}

function shortUrl(url: string): string {
  const match = /node_modules\/(.*)$/.exec(url) ?? /\/(dist\/.*|src\/.*)$/.exec(url);
  return match ? match[1]! : url;
}

/** Self time (ms) per function and per package. */
function selfTimes(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    const pkg = packageOf(url, functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    total += ms;
  });
  return { functions, packages, total };
}

function table(title: string, times: Map<string, number>, total: number): string {
  const rows = [...times].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  return [title, ...rows.map(([name, ms]) => `${((ms / total) * 100).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`)].join('\n');
}

export async function summariseProfile(file: string): Promise<string> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const { functions, packages, total } = selfTimes(profile);
  return [`self time, ${(total / 1000).toFixed(1)} s sampled`, table('by package:', packages, total), table('by function:', functions, total)].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node --import tsx bench/profile.ts <file.cpuprofile>');
  console.log(await summariseProfile(file));
}
