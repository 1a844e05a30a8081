/**
 * Where messages for an agent wait until its next model call: a prompt typed while it works, a
 * teammate's message, a finished background job. The loop drains every inbox it is given.
 */
export type Inbox = () => string[] | Promise<string[]>;
