/**
 * A seccomp filter for confined commands, as the classic BPF program bubblewrap loads with
 * `--seccomp FD` (written by hand: there is no libseccomp here). It refuses (EPERM):
 * - `socket(AF_UNIX, …)`: a Unix socket reaches host services whatever the namespaces say
 *   (Docker, ssh and password-manager agents, databases) — `socketpair` stays allowed, so
 *   pipes between a command's own processes still work;
 * - `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)`: typing into the user's terminal;
 * - `keyctl`, `add_key`, `request_key`: the session keyring;
 * - `io_uring_setup`: io_uring makes sockets and connections without the calls checked here;
 * - every call of another ABI (x32, 32-bit compatibility), whose numbers this filter does not check.
 * Only x86-64 and arm64 are known; elsewhere there is no filter (and the status says so).
 */

const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;
/** Syscall numbers per architecture. */
const CALLS = {
  x64: { socket: 41, ioctl: 16, keyctl: 250, add_key: 248, request_key: 249, io_uring_setup: 425 },
  arm64: { socket: 198, ioctl: 29, keyctl: 219, add_key: 217, request_key: 218, io_uring_setup: 425 },
} as const;
const AF_UNIX = 1;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
const X32_BIT = 0x40000000;
const EPERM = 1;

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

// Offsets in struct seccomp_data: nr, arch, then args (64-bit each, low half first).
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

type Instruction = [code: number, jt: number, jf: number, k: number];

/** The filter for this machine's architecture, or undefined where it is not known. */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  if (arch !== 'x64' && arch !== 'arm64') return undefined;
  const calls = CALLS[arch];
  const deny = RET_ERRNO | EPERM;
  // Jumps count the instructions skipped; the program ends with ALLOW then DENY.
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, ARCH],
    [JEQ_K, 1, 0, AUDIT_ARCH[arch]],
    [RET_K, 0, 0, deny], // another ABI
    [LD_W_ABS, 0, 0, NR],
    ...(arch === 'x64'
      ? ([
          [JGE_K, 0, 1, X32_BIT],
          [RET_K, 0, 0, deny],
        ] as Instruction[])
      : []),
    [JEQ_K, 0, 3, calls.socket],
    [LD_W_ABS, 0, 0, ARG0],
    [JEQ_K, 0, 1, AF_UNIX],
    [RET_K, 0, 0, deny],
    [LD_W_ABS, 0, 0, NR],
    [JEQ_K, 0, 4, calls.ioctl],
    [LD_W_ABS, 0, 0, ARG1],
    [JEQ_K, 1, 0, TIOCSTI],
    [JEQ_K, 0, 1, TIOCLINUX],
    [RET_K, 0, 0, deny],
    [LD_W_ABS, 0, 0, NR],
    [JEQ_K, 3, 0, calls.keyctl],
    [JEQ_K, 2, 0, calls.add_key],
    [JEQ_K, 1, 0, calls.request_key],
    [JEQ_K, 0, 1, calls.io_uring_setup],
    [RET_K, 0, 0, deny],
    [RET_K, 0, 0, RET_ALLOW],
  ];
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jt, index * 8 + 2);
    bytes.writeUInt8(jf, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return bytes;
}
