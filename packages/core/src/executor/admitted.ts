/** A call readied while its admission was written, and then not admitted (refused, or tried again): nothing was sent. */
export class NotAdmitted extends Error {
  constructor() {
    super("The call was not admitted; nothing was sent to its executor.");
    this.name = "NotAdmitted";
  }
}
