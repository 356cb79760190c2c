/**
 * `AcpProxy`: spawns the agent and routes ACP's symmetric JSON-RPC between the editor
 * (our stdin/stdout) and the agent (its stdin/stdout), one line per message (ACP v1 transports).
 * Each direction is an ordered pipeline (pipeline.ts): messages are judged and leave strictly in
 * arrival order, so nothing is reordered, while later messages are judged as an earlier one's
 * receipt commits (at most MAX_IN_FLIGHT per direction, then its input is not read); lines are
 * forwarded byte for byte. Malformed input from the editor is answered (−32700/−32600) and never
 * forwarded; garbage from the agent is logged and dropped. When the agent exits, the editor's
 * unanswered requests and every later one get a clear error, and the proxy keeps answering until
 * the editor closes its end.
 * Owns: processes and framing. Imports src/wire, the pipeline and the interceptor.
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { classify, errorResponse, INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, readLines } from '../../wire/index.js';
import type { Incoming } from '../../wire/index.js';
import type { AcpProxyConfig } from './config.js';
import { AcpInterceptor } from './interceptor.js';
import type { Disposition, InterceptorOptions, Judged } from './interceptor.js';
import { gatedInput, now, OrderedPipeline } from './pipeline.js';
import type { Step } from './pipeline.js';

export interface AcpProxyOptions extends Omit<InterceptorOptions, 'config'> {
  config: AcpProxyConfig;
  /** The editor's side: messages from it, and to it. */
  input: Readable;
  output: Writable;
  maxMessageBytes?: number;
}

export interface AcpProxyExit {
  /** How the agent ended (`exited with code 0`, `killed by SIGTERM`, `could not start: …`). */
  agent: string;
  agentCode: number | null;
}

/** ACP SDK's own per-message cap (src/stream-limits.ts): a whole file in fs/write_text_file must fit. */
export const ACP_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

const BATCH_REASON = 'batches are not supported (ACP uses single JSON-RPC messages)';

export class AcpProxy {
  readonly interceptor: AcpInterceptor;
  readonly closed: Promise<AcpProxyExit>;
  private agentGone: string | undefined;
  private agentCode: number | null = null;
  /** The editor's requests the agent has not answered: JSON id → method. */
  private readonly unanswered = new Map<string, string>();

  private constructor(private readonly options: AcpProxyOptions) {
    this.interceptor = new AcpInterceptor({ ...options, log: (line) => this.log(line) });
    this.closed = this.run();
  }

  static start(options: AcpProxyOptions): AcpProxy {
    return new AcpProxy(options);
  }

  private log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`chio acp proxy: ${l}\n`)))(line);
  }

  private async run(): Promise<AcpProxyExit> {
    const { fields } = this.options.config;
    const max = this.options.maxMessageBytes ?? ACP_MAX_MESSAGE_BYTES;
    const child = spawn(fields.agentCommand, [...fields.agentArgs], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...fields.agentEnv },
    });
    const editorOut = this.options.output;
    const toEditor = (m: object | string) => {
      // Messages that leave together (a committed batch of updates) go out in one write.
      if (editorOut.writableCorked === 0) {
        editorOut.cork();
        process.nextTick(() => editorOut.uncork());
      }
      editorOut.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
    };
    const toAgent = (m: object | string) => {
      if (this.agentGone === undefined && child.stdin.writable)
        child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
    };
    child.stdin.on('error', () => {}); // EPIPE once the agent is gone: reported through its exit
    const exited = new Promise<void>((resolve) => {
      child.once('error', (e) => {
        this.agentGone ??= `could not start: ${e.message}`;
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.agentGone ??= signal === null ? `exited with code ${code}` : `killed by ${signal}`;
        this.agentCode = code;
        resolve();
      });
    });

    // Agent → editor, in order.
    const agentPipe = new OrderedPipeline((e) =>
      this.log(`internal fault on an agent message: ${(e as Error)?.message ?? String(e)}`),
    );
    const fromAgent = readLines(
      gatedInput(child.stdout, agentPipe),
      {
        onLine: (line) => agentPipe.push(() => this.agentLine(line, toEditor, toAgent)),
        onOversize: (limit) =>
          agentPipe.push(() => now(() => this.log(`dropped a message from the agent larger than ${limit} bytes`))),
      },
      max,
    ).catch(() => {});
    const agentDone = Promise.all([exited, fromAgent])
      .then(() => agentPipe.drained())
      .then(() => {
        for (const [key, method] of this.unanswered)
          toEditor(
            errorResponse(JSON.parse(key), INTERNAL_ERROR, `agent ${this.agentGone} before answering ${method}`),
          );
        this.unanswered.clear();
        this.log(`agent ${this.agentGone}`);
      });

    // Editor → agent, in order.
    const editorPipe = new OrderedPipeline((e) =>
      this.log(`internal fault on an editor message: ${(e as Error)?.message ?? String(e)}`),
    );
    await readLines(
      gatedInput(this.options.input, editorPipe),
      {
        onLine: (line) => editorPipe.push(() => this.editorLine(line, toEditor, toAgent)),
        // Queued like any line, so the refusal never overtakes answers to earlier lines.
        onOversize: (limit) =>
          editorPipe.push(() =>
            now(
              () => void toEditor(errorResponse(null, INVALID_REQUEST, `message larger than ${limit} bytes refused`)),
            ),
          ),
      },
      max,
    );
    await editorPipe.drained();
    child.stdin.end();
    // The editor is gone: the agent gets 5 s to finish on its own, then SIGTERM, then SIGKILL.
    const term = setTimeout(() => child.kill('SIGTERM'), 5000);
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await agentDone;
    clearTimeout(term);
    clearTimeout(kill);
    return { agent: this.agentGone ?? 'exited', agentCode: this.agentCode };
  }

  private parse(line: string): { ok: true; message: Incoming; raw: string } | { ok: false; reason: string } | null {
    if (line.trim() === '') return null;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      return { ok: false, reason: `parse error: ${(e as Error).message}` };
    }
    return { ok: true, message: classify(value, { batchReason: BATCH_REASON }), raw: line };
  }

  private apply(
    d: Disposition,
    raw: string,
    sender: (m: object | string) => void,
    peer: (m: object | string) => void,
  ): void {
    if (d.forward) peer(raw);
    for (const m of d.toSender) sender(m);
    for (const m of d.toPeerAfter) peer(m);
  }

  /** Judged in arrival order; bookkeeping now, sends when it leaves. */
  private async editorLine(
    line: string,
    toEditor: (m: object | string) => void,
    toAgent: (m: object | string) => void,
  ): Promise<Step> {
    const p = this.parse(line);
    if (p === null) return now();
    if (!p.ok) return now(() => void toEditor(errorResponse(null, PARSE_ERROR, p.reason)));
    const m = p.message;
    if (m.kind === 'invalid') return now(() => void toEditor(errorResponse(m.id, INVALID_REQUEST, m.reason)));
    if (this.agentGone !== undefined) {
      const gone = this.agentGone;
      return now(() => {
        if (m.kind === 'request')
          toEditor(
            errorResponse(m.message.id, INTERNAL_ERROR, `agent ${gone}; ${m.message.method} cannot be answered`),
          );
      });
    }
    if (m.kind === 'request') this.unanswered.set(JSON.stringify(m.message.id), m.message.method);
    const d = await this.interceptor.fromClient(m);
    return now(() => this.apply(d, p.raw, toEditor, toAgent));
  }

  /** Judged in arrival order; leaves once its receipt (if any) committed or failed, after every earlier agent message. */
  private async agentLine(
    line: string,
    toEditor: (m: object | string) => void,
    toAgent: (m: object | string) => void,
  ): Promise<Step> {
    const p = this.parse(line);
    if (p === null) return now();
    if (!p.ok) return now(() => this.log(`dropped a line from the agent that is not JSON: ${line.slice(0, 120)}`));
    const m = p.message;
    if (m.kind === 'invalid') {
      return now(() => {
        this.log(`dropped a message from the agent that is not JSON-RPC: ${m.reason}`);
        if (m.id !== null) toAgent(errorResponse(m.id, INVALID_REQUEST, m.reason));
      });
    }
    if (m.kind === 'response' && m.message.id !== null) this.unanswered.delete(JSON.stringify(m.message.id));
    // A fault while judging a message fails closed: not forwarded, and a request is answered.
    const fault = (e: unknown) => () => {
      this.log(`internal fault on an agent message, not forwarded: ${(e as Error)?.message ?? String(e)}`);
      if (m.kind === 'request')
        toAgent(
          errorResponse(m.message.id, INTERNAL_ERROR, `internal error: the proxy could not judge ${m.message.method}`),
        );
    };
    let judged: Judged;
    try {
      judged = await this.interceptor.judgeFromAgent(m);
    } catch (e) {
      return now(fault(e));
    }
    return { leave: judged.ready.then((d: Disposition) => () => this.apply(d, p.raw, toAgent, toEditor), fault) };
  }
}
