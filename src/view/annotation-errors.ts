/** The error of a request the sample cannot take (./annotations.ts). */

/** A request the sample cannot take (unknown item, bad label or name): the message says which field. */
export class AnnotationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AnnotationInputError";
  }
}
