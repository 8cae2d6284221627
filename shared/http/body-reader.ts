import { AppError } from '../errors.ts';
import { IncomingRequest, MAX_DRAIN_BYTES } from './request.ts';
import type { HttpServer, Reply, Routed } from './server.ts';

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
 * to the route's limit; read and discarded, never kept, once it is over the limit (413)
 * or once the route's credential check (`Route.authenticate`, run as the body arrives)
 * has failed, so that a client without a valid key holds no memory; then the request is
 * run once. A request whose check failed runs with an empty body, so that its handler
 * answers the failure as its route answers errors (and the 401 counts toward the
 * failed-authentication limit).
 */
export class BodyReader {
  #chunks: Buffer[] = [];
  #size = 0;
  #drained = 0;
  #complete = false;
  #tooLarge: AppError | undefined;
  /** The credential check: true, false, or undefined while it runs. */
  #authenticated: boolean | undefined;

  constructor(
    private readonly server: HttpServer,
    private readonly reply: Reply,
    private readonly routed: Routed,
    private readonly head: RequestHead,
    authenticated?: boolean,
  ) {
    this.#tooLarge = routed.tooLarge;
    if (authenticated !== undefined) this.#authenticated = authenticated;
    else {
      const check = server.preauthenticate(routed.route, head.headers);
      if (typeof check === 'boolean') this.#authenticated = check;
      else
        void check.then((ok) => {
          this.#authenticated = ok;
          if (!ok) this.#chunks = [];
          this.#settle();
        });
    }
  }

  /** A chunk of the body, owned by the reader from now on. */
  push(chunk: Buffer): void {
    if (this.reply.answered) return;
    if (this.#authenticated === false || this.#tooLarge) {
      this.#drained += chunk.byteLength;
      // Past the bound the answer goes out at once and the connection is closed.
      if (this.#authenticated === false && this.#drained > MAX_REFUSED_DRAIN_BYTES) this.#run(EMPTY, true);
      else if (this.#tooLarge && this.#drained > MAX_DRAIN_BYTES) this.#refuseTooLarge(true);
      return;
    }
    this.#size += chunk.byteLength;
    if (this.#size > this.routed.limit) {
      this.#tooLarge = new AppError('payload_too_large', `request body exceeds the limit of ${this.routed.limit} bytes`);
      this.#chunks = [];
      return;
    }
    this.#chunks.push(chunk);
  }

  /** The body is complete: the request runs (or is refused) now, or once its credential check ends. */
  end(): void {
    this.#complete = true;
    this.#settle();
  }

  #settle(): void {
    if (!this.#complete || this.reply.answered || this.reply.aborted || this.#authenticated === undefined) return;
    if (this.#authenticated === false) this.#run(EMPTY, false);
    else if (this.#tooLarge) this.#refuseTooLarge(false);
    else {
      const chunks = this.#chunks;
      this.#chunks = [];
      this.#run(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size), false);
    }
  }

  #refuseTooLarge(close: boolean): void {
    this.server.refuse(this.reply, this.#tooLarge!, this.routed.requestId, this.routed.route.path, this.head.receivedAt, close);
  }

  #run(body: Buffer, close: boolean): void {
    const h = this.head;
    const req = new IncomingRequest(h.method, h.path, this.routed.params, h.rawQuery, h.headers, body, this.routed.requestId, h.receivedAt);
    this.server.run(this.reply, req, this.routed.route, close);
  }
}
