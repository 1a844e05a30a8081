/**
 * A seccomp filter for confined commands, as the classic BPF program bubblewrap loads with
 * `--seccomp FD` (written by hand: there is no libseccomp here). It refuses (EPERM):
 * - `socket(AF_UNIX | AF_VSOCK, …)`: a Unix socket reaches host services whatever the
 *   namespaces say (Docker, ssh and password-manager agents, databases), vsock ignores them;
 * - `socketpair` of any kind but a stream pair (pipes between a command's own processes, Node's
 *   IPC): a datagram pair could still send to a host socket;
 * - terminal `ioctl`s that type into the terminal (`TIOCSTI`, `TIOCLINUX`) or change its
 *   settings (`TCSETS*`, `TIOCSETD`, `TIOCSCTTY`, `TIOCCONS`): a command must not leave the
 *   user's terminal reading keys differently after it ends;
 * - `keyctl`, `add_key`, `request_key`: the session keyring;
 * - `io_uring_setup`: io_uring makes sockets and connections without the calls checked here;
 * - every call of another ABI (x32, 32-bit compatibility), whose numbers this filter does not check.
 * Only x86-64 and arm64 are known; elsewhere there is no filter (and the status says so).
 */

const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;
/** Syscall numbers per architecture. */
const CALLS = {
  x64: { socket: 41, socketpair: 53, ioctl: 16, keyctl: 250, add_key: 248, request_key: 249, io_uring_setup: 425 },
  arm64: { socket: 198, socketpair: 199, ioctl: 29, keyctl: 219, add_key: 217, request_key: 218, io_uring_setup: 425 },
} as const;
const AF_UNIX = 1;
const AF_VSOCK = 40;
const SOCK_STREAM = 1;
const SOCK_TYPE_MASK = 0xf;
const TERMINAL_IOCTLS = [
  0x5412, // TIOCSTI
  0x541c, // TIOCLINUX
  0x5402, // TCSETS
  0x5403, // TCSETSW
  0x5404, // TCSETSF
  0x5406, // TCSETA
  0x5407, // TCSETAW
  0x5408, // TCSETAF
  0x402c542b, // TCSETS2
  0x402c542c, // TCSETSW2
  0x402c542d, // TCSETSF2
  0x5423, // TIOCSETD
  0x540e, // TIOCSCTTY
  0x541d, // TIOCCONS
];
const X32_BIT = 0x40000000;
const EPERM = 1;

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const ALU_AND_K = 0x54;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const DENY = 0x00050000 | EPERM;

// Offsets in struct seccomp_data: nr, arch, then args (64-bit each, low half first).
const NR = 0;
const ARCH = 4;
const ARG = [16, 24];

type Instruction = [code: number, jt: number, jf: number, k: number];

/**
 * A block that denies the call `nr` when its argument `arg` (masked) is one of `values` — or,
 * with `allowOnly`, when it is not that value; with no argument, always. Jumps stay inside it.
 */
function denyWhen(
  nr: number,
  check?: { arg: number; values: readonly number[]; mask?: number; allowOnly?: boolean },
): Instruction[] {
  const tests: Instruction[] = [];
  if (check) {
    tests.push([LD_W_ABS, 0, 0, ARG[check.arg]!]);
    if (check.mask !== undefined) tests.push([ALU_AND_K, 0, 0, check.mask]);
    if (check.allowOnly) tests.push([JEQ_K, 1, 0, check.values[0]!]);
    else
      check.values.forEach((value, index) => {
        const last = index === check.values.length - 1;
        tests.push([JEQ_K, check.values.length - 1 - index, last ? 1 : 0, value]);
      });
  }
  // After the deny, the block falls through to the next one.
  return [[LD_W_ABS, 0, 0, NR], [JEQ_K, 0, tests.length + 1, nr], ...tests, [RET_K, 0, 0, DENY]];
}

/** The filter for this machine's architecture, or undefined where it is not known. */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  if (arch !== 'x64' && arch !== 'arm64') return undefined;
  const calls = CALLS[arch];
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, ARCH],
    [JEQ_K, 1, 0, AUDIT_ARCH[arch]],
    [RET_K, 0, 0, DENY], // another ABI
    ...(arch === 'x64'
      ? ([
          [LD_W_ABS, 0, 0, NR],
          [JGE_K, 0, 1, X32_BIT],
          [RET_K, 0, 0, DENY],
        ] as Instruction[])
      : []),
    ...denyWhen(calls.socket, { arg: 0, values: [AF_UNIX, AF_VSOCK] }),
    ...denyWhen(calls.socketpair, { arg: 1, values: [SOCK_STREAM], mask: SOCK_TYPE_MASK, allowOnly: true }),
    ...denyWhen(calls.ioctl, { arg: 1, values: TERMINAL_IOCTLS }),
    ...denyWhen(calls.keyctl),
    ...denyWhen(calls.add_key),
    ...denyWhen(calls.request_key),
    ...denyWhen(calls.io_uring_setup),
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
