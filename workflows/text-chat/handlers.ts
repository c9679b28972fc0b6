import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import {
  endTextChatUpdate,
  type TextChatEnd,
  type TextChatMessage,
  type TextChatRewind,
  openTextChatUpdate,
  rewindTextChatUpdate,
  sendTextChatMessageUpdate,
  textChatQuery,
} from './definitions';
import type { Refusal, TextChatSession } from './session';
import { takeStep } from './steps';

/** Refuses an Update in its validator: it never enters the history, and nothing changes. */
const refuse = (refusal: Refusal | null): void => {
  if (refusal) throw ApplicationFailure.create({ type: refusal.type, message: refusal.message, nonRetryable: true });
};

/**
 * The session's Query and Updates. Each change names the revision it follows, checked by its
 * validator (a stale one is refused before it enters the history); one step of the agent runs at
 * a time, so a request while the agent answers is refused too. `startedAt`: the session's start.
 */
export function registerTextChatHandlers(session: TextChatSession, startedAt: string): void {
  setHandler(textChatQuery, () => session.view());

  setHandler(openTextChatUpdate, async () => {
    await condition(() => session.opened || session.isConcluded);
    return session.reply();
  });

  setHandler(
    sendTextChatMessageUpdate,
    async ({ text, streamId }) => {
      await takeStep(session, startedAt, { text }, streamId);
      if (session.ended) await condition(() => session.isConcluded);
      return session.reply();
    },
    { validator: ({ expectedRevision }: TextChatMessage) => refuse(session.refusal(expectedRevision)) },
  );

  setHandler(
    rewindTextChatUpdate,
    ({ toTurn }) => {
      session.rewind(toTurn);
      return Promise.resolve(session.reply());
    },
    {
      validator: ({ toTurn, expectedRevision }: TextChatRewind) =>
        refuse(session.rewindRefusal(toTurn, expectedRevision)),
    },
  );

  setHandler(
    endTextChatUpdate,
    async () => {
      await takeStep(session, startedAt, { ended: 'callee_hangup' });
      await condition(() => session.isConcluded);
      return session.reply();
    },
    { validator: ({ expectedRevision }: TextChatEnd) => refuse(session.refusal(expectedRevision)) },
  );
}
