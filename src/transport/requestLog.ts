import type { Logger } from 'pino';

/**
 * The logger a fast-path request gets: the request id is bound only when a line is written (a
 * pino child per request costs more than the rest of the fast path's bookkeeping).
 */
export class RequestLog {
  constructor(
    private readonly logger: Logger,
    private readonly reqId: string,
  ) {}

  error(obj: object, msg?: string): void {
    this.logger.child({ reqId: this.reqId }).error(obj, msg);
  }

  warn(obj: object, msg?: string): void {
    this.logger.child({ reqId: this.reqId }).warn(obj, msg);
  }

  debug(obj: object, msg?: string): void {
    if (this.logger.isLevelEnabled('debug')) this.logger.child({ reqId: this.reqId }).debug(obj, msg);
  }
}
