/**
 * A Model of our own for the Agents SDK's Runner, answering from a script and from what it is
 * given, so a run is the same in any process: "… weather in <city>?" asks the weather tool; a tool
 * result is turned into the answer; anything else is answered with the first question of the
 * history and how many items the model was given (which shows a resumed run saw its history).
 */
import { Agent, tool, Usage } from "@openai/agents-core";
import { z } from "zod";

const textOf = (item) =>
  typeof item?.content === "string" ? item.content : (item?.content ?? []).map((p) => p.text ?? "").join("");

const answer = (n, text) => ({
  type: "message",
  role: "assistant",
  id: `msg_${n}`,
  status: "completed",
  content: [{ type: "output_text", text }],
});

export class ScriptModel {
  async getResponse(request) {
    const input =
      typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
    const n = input.length;
    const last = input.at(-1);
    let output;
    if (last?.type === "function_call_result") {
      output = [answer(n, `It is ${typeof last.output === "string" ? last.output : last.output.text}.`)];
    } else {
      const city = /weather in (\S+?)\?$/.exec(textOf(last))?.[1];
      output = city
        ? [
            {
              type: "function_call",
              id: `fc_${n}`,
              callId: `call_${n}`,
              name: "weather",
              arguments: JSON.stringify({ city }),
              status: "completed",
            },
          ]
        : [answer(n, `You first asked: ${textOf(input.find((i) => i.role === "user"))} (${n} items given)`)];
    }
    return {
      usage: new Usage({ requests: 1, inputTokens: 10 * n, outputTokens: 5, totalTokens: 10 * n + 5 }),
      output,
      responseId: `resp_${n}`,
    };
  }

  async *getStreamedResponse(request) {
    const response = await this.getResponse(request);
    yield {
      type: "response_done",
      response: { id: response.responseId, usage: response.usage, output: response.output },
    };
  }
}

const weather = tool({
  name: "weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => (city === "Zürich" ? "12°C and foggy in Zürich" : `sunny in ${city}`),
});

/** The agent every test process runs. */
export function weatherAgent() {
  return new Agent({
    name: "weather",
    instructions: "Answer briefly.",
    model: new ScriptModel(),
    tools: [weather],
  });
}
