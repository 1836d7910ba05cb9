/**
 * A real AI SDK chat, offline: `streamText` over the SDK's own MockLanguageModelV4 answering
 * from a script (text, reasoning, tool calls), the tools executed by the SDK, and the response
 * turned into UIMessages by `toUIMessageStream`, whose `onEnd` hands them to the save callback
 * as the SDK's persistence guide does.
 */
import {
  convertToModelMessages,
  createIdGenerator,
  stepCountIs,
  streamText,
  type TextStreamPart,
  type ToolSet,
  tool,
  toUIMessageStream,
  type UIMessage,
} from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

/** What the scripted model says in one step, and the tokens it reports (default: 100 + n input,
 * 2 of them cached, and 10 + n output for the model's n-th call). */
export type Step = (
  | { text: string; hangAfter?: number }
  | { calls: { id: string; tool: string; input: Json }[] }
) & {
  reasoning?: string;
  tokens?: { input: number; output: number };
};
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const tools = {
  weather: tool({
    description: "The weather in a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: city.length + 10, sky: "clear" }),
  }),
  fail: tool({
    description: "A tool that always fails",
    inputSchema: z.object({ why: z.string() }),
    execute: async ({ why }): Promise<string> => {
      throw new Error(`failed on purpose: ${why}`);
    },
  }),
} satisfies ToolSet;

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input - 2, cacheRead: 2, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** The model's stream parts for one step. */
function partsOf(step: Step, n: number) {
  const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
  if (step.reasoning) {
    parts.push(
      { type: "reasoning-start", id: `r${n}` },
      { type: "reasoning-delta", id: `r${n}`, delta: step.reasoning },
    );
    parts.push({ type: "reasoning-end", id: `r${n}` });
  }
  if ("text" in step) {
    parts.push({ type: "text-start", id: `t${n}` });
    for (const word of step.text.split(/(?<= )/))
      parts.push({ type: "text-delta", id: `t${n}`, delta: word });
    parts.push({ type: "text-end", id: `t${n}` });
  } else {
    for (const call of step.calls) {
      parts.push({
        type: "tool-call",
        toolCallId: call.id,
        toolName: call.tool,
        input: JSON.stringify(call.input),
      });
    }
  }
  const finishReason = { unified: "text" in step ? "stop" : "tool-calls", raw: undefined };
  const tokens = step.tokens ?? { input: 100 + n, output: 10 + n };
  parts.push({ type: "finish", finishReason, usage: usage(tokens.input, tokens.output) });
  return parts;
}

/** The parts as a stream; with `hangAfter`, the stream stops after that many text deltas until
 * the call is aborted, as a provider does whose client went away mid-answer. */
function streamOf(parts: unknown[], hangAfter: number | undefined, signal: AbortSignal | undefined) {
  if (hangAfter === undefined) return convertArrayToReadableStream(parts as never);
  let next = 0;
  let deltas = 0;
  return new ReadableStream({
    async pull(controller) {
      const part = parts[next++] as { type: string };
      if (part.type === "text-delta" && deltas++ === hangAfter) {
        await new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
        controller.error(signal?.reason);
        return;
      }
      controller.enqueue(part as never);
    },
  });
}

/** A mock model answering each call with the next step of `script`. */
export function scriptedModel(script: Step[]): MockLanguageModelV4 {
  let n = 0;
  return new MockLanguageModelV4({
    modelId: "mock-1",
    doStream: async (options) => {
      const step = script[n++];
      if (!step) throw new Error("the script has no step left");
      const hangAfter = "hangAfter" in step ? step.hangAfter : undefined;
      return { stream: streamOf(partsOf(step, n), hangAfter, options.abortSignal) };
    },
  });
}

/** One request of the chat: the history plus `user`'s text, the model's steps, and the
 * messages `onEnd` gives, passed to `save` (awaited) before the turn resolves. With `abortAfter`,
 * the request is aborted once that many text deltas reached the client (a step with `hangAfter`
 * set to the same count sends no more until then). */
export async function turn(options: {
  history: UIMessage[];
  /** The user's new message; none to continue the last assistant message (after an approval). */
  user?: string;
  /** Tools that need the user's approval before they run. */
  approve?: (keyof typeof tools)[];
  script: Step[];
  save: (messages: UIMessage[]) => unknown;
  abortAfter?: number;
}): Promise<{ messages: UIMessage[]; isAborted: boolean }> {
  const messages = [...options.history];
  if (options.user !== undefined) {
    messages.push({
      id: `u-${messages.length}`,
      role: "user",
      parts: [{ type: "text", text: options.user }],
    });
  }
  const controller = new AbortController();
  const result = streamText({
    model: scriptedModel(options.script),
    messages: await convertToModelMessages(messages, { tools }),
    tools,
    stopWhen: stepCountIs(5),
    toolApproval: Object.fromEntries((options.approve ?? []).map((name) => [name, "user-approval"])),
    abortSignal: controller.signal,
  });
  let ended: { messages: UIMessage[]; isAborted: boolean } | undefined;
  let saved: Promise<unknown> = Promise.resolve();
  const stream = toUIMessageStream({
    stream: result.stream as ReadableStream<TextStreamPart<typeof tools>>,
    tools,
    originalMessages: messages,
    generateMessageId: createIdGenerator({ prefix: `a${options.history.length}`, size: 8 }),
    messageMetadata: ({ part }) =>
      part.type === "finish"
        ? { model: "mock-1", provider: "mock-provider", usage: part.totalUsage }
        : undefined,
    onEnd: (event) => {
      ended = { messages: event.messages, isAborted: event.isAborted };
      saved = Promise.resolve(options.save(event.messages));
    },
  });
  let deltas = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === "text-delta" && ++deltas === options.abortAfter) controller.abort();
  }
  await saved;
  if (!ended) throw new Error("onEnd was not called");
  return ended;
}
