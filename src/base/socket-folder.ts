// Whom a socket path can be trusted to lead to. The daemon listens, and the CLI connects, only
// where no other user can place or replace the socket: every folder from the root down to the
// socket's (symlinks resolved) is owned by this user or root and writable by no one else, unless
// it is sticky (as /tmp is: others cannot rename or remove what is ours there). A folder another
// user made first ($TMPDIR/fathom-$UID, 0777) is refused, never used. The CLI checks, before it sends a byte, that the socket file itself is a socket
// owned by this user: only a process running as this user (or root) can have bound it, and in
// such a folder nobody else can swap it afterwards. (Node has no getsockopt, so SO_PEERCRED is
// out of reach; in a folder only this user can write, the socket's owner is the same fact.)
// Also whether anything answers on a socket path (isLive): the daemon asks before it takes a path
// over, the CLI while it waits for a daemon it started. Imports nothing of ours.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export class UnsafeSocketError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeSocketError';
  }
}

function uid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

const sticky = 0o1000;
const groupOrOtherWrite = 0o022;

/** Why `folder` (a real path that exists) lets another user in, or undefined when it does not. */
function folderProblem(folder: string): string | undefined {
  const me = uid();
  const stat = fs.statSync(folder);
  if (!stat.isDirectory()) return `${folder} is not a folder`;
  if (me === undefined) return undefined;
  if (stat.uid !== me && stat.uid !== 0) return `${folder} belongs to uid ${stat.uid}, not to you (uid ${me})`;
  if ((stat.mode & groupOrOtherWrite) !== 0 && (stat.mode & sticky) === 0)
    return `${folder} can be written by others (mode ${(stat.mode & 0o7777).toString(8)})`;
  return undefined;
}

/**
 * Throws UnsafeSocketError unless the socket's folder and every folder above it are safe (see
 * the module comment); symlinks are resolved first, so a link planted in /tmp is judged by the
 * folder it leads to. `create`: a missing socket folder is made first, 0700.
 */
export function checkSocketFolder(socketPath: string, options: { create: boolean }): void {
  const folder = path.dirname(path.resolve(socketPath));
  if (options.create && !fs.existsSync(folder)) {
    fs.mkdirSync(path.dirname(folder), { recursive: true, mode: 0o700 });
    try {
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const problems: string[] = [];
  for (let above = fs.realpathSync(folder); ; above = path.dirname(above)) {
    const problem = folderProblem(above);
    if (problem) problems.push(problem);
    if (path.dirname(above) === above) break;
  }
  if (problems.length > 0) {
    throw new UnsafeSocketError(
      `refusing the socket ${socketPath}: ${problems.join('; ')}. Another user could put their own daemon there; remove the folder, or set FATHOM_SOCKET (or XDG_RUNTIME_DIR) to a folder of yours`,
    );
  }
}

/**
 * Throws UnsafeSocketError unless `socketPath` is a socket this user owns in a safe folder;
 * returns false when there is nothing there (no daemon yet).
 */
export function checkSocketToConnect(socketPath: string): boolean {
  const stat = fs.lstatSync(socketPath, { throwIfNoEntry: false });
  if (!stat) {
    // Nothing to connect to: the folder is still checked when it exists (a daemon is started there).
    if (fs.existsSync(path.dirname(socketPath))) checkSocketFolder(socketPath, { create: false });
    return false;
  }
  checkSocketFolder(socketPath, { create: false });
  const me = uid();
  if (!stat.isSocket()) throw new UnsafeSocketError(`refusing ${socketPath}: it is not a socket`);
  if (me !== undefined && stat.uid !== me)
    throw new UnsafeSocketError(`refusing ${socketPath}: the socket belongs to uid ${stat.uid}, not to you (uid ${me}); it is not your daemon`);
  return true;
}

/** Whether something accepts connections on a socket path. */
export function isLive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
