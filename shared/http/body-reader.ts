import { AppError } from '../errors.ts';
import type { BodyReservation } from './body-budget.ts';
import { IncomingRequest, MAX_DRAIN_BYTES } from './request.ts';
import type { HttpServer, Reply, Routed } from './server.ts';
import type { CredentialCheck } from './types.ts';

/** How much of the body of a request whose credentials were refused is read (and discarded) before it is answered and its connection closed. */
export const MAX_REFUSED_DRAIN_BYTES = 1024 * 1024;
const EMPTY = Buffer.alloc(0);

/** What a transport read of a request before its body. */
export interface RequestHead {
  method: string;
  path: string;
  rawQuery: string;
  headers: Record<string, string>;
  receivedAt: number;
}

/**
 * Reads one request's body for its route, the same way whatever the transport: kept up
 * to the route's limit and within the process's budget of body memory
 * (`HttpServer.bodies`: a declared Content-Length is taken from it before the first byte,
 * a chunked body as it arrives); read and discarded, never kept, once it is over the
 * limit (413), once the budget has no room for it (503 with Retry-After), or once the
 * route's credential check (`Route.authenticate`, run once as the body arrives, its outcome
 * handed to the handler) has failed, so that a client without a valid key holds no
 * memory; then the request is run once. The
 * request's share of the budget is given back when it is answered (or its client leaves
 * before it runs). A request whose check failed runs with an empty body, so that its handler
 * answers the failure as its route answers errors (and the 401 counts toward the
 * failed-authentication limit).
 */
export class BodyReader {
  #chunks: Buffer[] = [];
  #size = 0;
  #drained = 0;
  #complete = false;
  #ran = false;
  /** Bytes of the body taken from the budget so far. */
  #taken = 0;
  /** Why the body is discarded and the request refused (413, 503), if it is. */
  #refused: AppError | undefined;
  readonly #memory: BodyReservation;
  /** The credential check: true, false, or undefined while it runs. */
  #authenticated: boolean | undefined;
  /** Its outcome, for the handler (undefined when the route has no check). */
  #credentials: CredentialCheck | undefined;

  constructor(
    private readonly server: HttpServer,
    private readonly reply: Reply,
    private readonly routed: Routed,
    private readonly head: RequestHead,
    /** The route's credential check (`HttpServer.preauthenticate`), begun by the transport. */
    check: CredentialCheck | Promise<CredentialCheck> | undefined,
  ) {
    this.#refused = routed.tooLarge;
    this.#memory = server.bodies.reserve(routed.route.bodyCost?.(head.headers) ?? 1);
    if (check instanceof Promise) void check.then((c) => this.#checked(c));
    else this.#checked(check);
    const declared = Number(head.headers['content-length'] ?? '0');
    if (!this.#refused && this.#authenticated !== false && declared > 0) this.#takeUpTo(declared);
  }

  /** The credential check is over: a body behind failed credentials is dropped, and the request runs once complete. */
  #checked(c: CredentialCheck | undefined): void {
    this.#credentials = c;
    this.#authenticated = c === undefined || c.ok;
    if (!this.#authenticated) this.#drop();
    this.#settle();
  }

  /** A chunk of the body, owned by the reader from now on. */
  push(chunk: Buffer): void {
    if (this.reply.answered) return;
    if (this.#authenticated === false || this.#refused) {
      this.#drained += chunk.byteLength;
      // Past the bound the answer goes out at once and the connection is closed.
      if (this.#authenticated === false && this.#drained > MAX_REFUSED_DRAIN_BYTES) this.#run(EMPTY, true);
      else if (this.#refused && this.#drained > MAX_DRAIN_BYTES) this.#refuse(true);
      return;
    }
    this.#size += chunk.byteLength;
    if (this.#size > this.routed.limit) {
      this.#refused = new AppError('payload_too_large', `request body exceeds the limit of ${this.routed.limit} bytes`);
      this.#drop();
      return;
    }
    if (this.#size > this.#taken && !this.#takeUpTo(this.#size)) return;
    this.#chunks.push(chunk);
  }

  /** The client left before the request ran: its bytes go back to the budget. */
  abort(): void {
    if (!this.#ran) this.#drop();
  }

  /** Takes the body's bytes up to `size` from the budget; when they do not fit, the body is refused and dropped. */
  #takeUpTo(size: number): boolean {
    const more = size - this.#taken;
    if (this.#memory.tryTake(more)) {
      this.#taken = size;
      return true;
    }
    this.#refused = this.#memory.refusal(more);
    this.#drop();
    return false;
  }

  /** Drops the body: what was received is garbage until collected (BodyBudget.give); a share taken ahead of bytes that never came is given back at once. */
  #drop(): void {
    this.#chunks = [];
    if (this.#size === 0) this.#memory.cancel();
    else this.#memory.release();
  }

  /** The body is complete: the request runs (or is refused) now, or once its credential check ends. */
  end(): void {
    this.#complete = true;
    this.#settle();
  }

  #settle(): void {
    if (!this.#complete || this.reply.answered || this.reply.aborted || this.#authenticated === undefined) return;
    if (this.#authenticated === false) this.#run(EMPTY, false);
    else if (this.#refused) this.#refuse(false);
    else {
      const chunks = this.#chunks;
      this.#chunks = [];
      this.#run(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size), false);
    }
  }

  #refuse(close: boolean): void {
    this.#ran = true;
    this.#drop();
    this.server.refuse(this.reply, this.#refused!, this.routed.requestId, this.routed.route.path, this.head.receivedAt, close);
  }

  #run(body: Buffer, close: boolean): void {
    this.#ran = true;
    if (body === EMPTY) this.#drop();
    const h = this.head;
    // The request holds its share of the budget until it is answered (HttpServer.answer gives it back).
    const req = new IncomingRequest(h.method, h.path, this.routed.params, h.rawQuery, h.headers, body, this.routed.requestId, h.receivedAt, this.#memory, this.#credentials);
    this.server.run(this.reply, req, this.routed.route, close);
  }
}
