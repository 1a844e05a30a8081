/**
 * Other places the home folder shows (Linux): a bind mount of it, or of a folder holding it,
 * elsewhere (`mount --bind /home/me /mnt/me`, the same disk mounted twice). The sandbox binds the
 * whole file system read-only and hides the home at its path; the same files seen through
 * another mount point would stay readable. Read from /proc/self/mountinfo: a mount of the home's
 * device whose root holds the home's place on that device shows the home at the matching path.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../core/workspace/workspace-path';

interface Mount {
  device: string;
  /** The folder of the device this mount shows. */
  root: string;
  /** Where it shows it. */
  point: string;
}

/** The mount table's entries (`/proc/self/mountinfo`), in order. */
export function parseMountInfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 5) continue;
    mounts.push({ device: fields[2]!, root: unescape(fields[3]!), point: unescape(fields[4]!) });
  }
  return mounts;
}

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * Where else each of `folders` (real paths) shows, outside itself: one path per other view.
 * `mountInfo` is the mount table's text (read from /proc when not given; none where unreadable).
 */
export function otherViews(folders: readonly string[], mountInfo = readMountInfo()): string[] {
  const mounts = parseMountInfo(mountInfo);
  const views = new Set<string>();
  for (const folder of folders) {
    // The mount that shows the folder: the deepest mount point holding it, the last one mounted there.
    let holder: Mount | undefined;
    for (const mount of mounts)
      if (isInside(mount.point, folder) && (!holder || mount.point.length >= holder.point.length)) holder = mount;
    if (!holder) continue;
    const onDevice = path.join(holder.root, path.relative(holder.point, folder));
    for (const mount of mounts) {
      if (mount.device !== holder.device || !isInside(mount.root, onDevice)) continue;
      const view = path.join(mount.point, path.relative(mount.root, onDevice));
      if (!isInside(folder, view)) views.add(view);
    }
  }
  return [...views];
}

function readMountInfo(): string {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return '';
  }
}
