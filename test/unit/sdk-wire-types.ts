// Written by scripts/sdk-wire-bodies.ts from test/helpers/wire-cases.ts: do not edit by hand.
// albedo's encoded request bodies, held to the official SDKs' parameter types by `satisfies`
// (npm run check:types compiles this file); test/unit/sdk-wire-bodies.test.ts checks they are
// still what the encoders write.
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";

/**
 * The one place the SDK's types are stricter than the API: an assistant message replayed
 * with output_text parts is typed as a ResponseOutputMessage (id, status and annotations
 * required), which the API does not ask of input items. Everything else of the body is the
 * SDK's own ResponseCreateParams.
 */
type AssistantMessageAsSent = {
  type: "message";
  role: "assistant";
  content: Array<Pick<OpenAI.Responses.ResponseOutputText, "type" | "text">>;
  phase?: OpenAI.Responses.ResponseOutputMessage["phase"];
};
type ResponsesBody = Omit<OpenAI.Responses.ResponseCreateParams, "input"> & {
  input: Array<OpenAI.Responses.ResponseInputItem | AssistantMessageAsSent>;
};

export const ANTHROPIC_BODIES = {
  adaptive_live_round: {
    "model": "claude-sonnet-4-6",
    "max_tokens": 32000,
    "system": [
      {
        "type": "text",
        "text": "You are albedo."
      },
      {
        "type": "text",
        "text": "Use tabs."
      }
    ],
    "messages": [
      {
        "role": "user",
        "content": [
          {
            "type": "text",
            "text": "earlier question"
          }
        ]
      },
      {
        "role": "assistant",
        "content": [
          {
            "type": "text",
            "text": "earlier answer"
          }
        ]
      },
      {
        "role": "user",
        "content": [
          {
            "type": "text",
            "text": "look at this"
          },
          {
            "type": "image",
            "source": {
              "type": "base64",
              "media_type": "image/png",
              "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
            }
          }
        ]
      },
      {
        "role": "assistant",
        "content": [
          {
            "type": "thinking",
            "thinking": "plan",
            "signature": "SIG"
          },
          {
            "type": "text",
            "text": "Reading."
          },
          {
            "type": "tool_use",
            "id": "call_1",
            "name": "read",
            "input": {
              "path": "a.ts"
            }
          },
          {
            "type": "tool_use",
            "id": "call_2",
            "name": "bash",
            "input": {
              "command": "ls"
            }
          }
        ]
      },
      {
        "role": "user",
        "content": [
          {
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": "export {}"
          },
          {
            "type": "tool_result",
            "tool_use_id": "call_2",
            "content": "exit 1",
            "is_error": true
          }
        ]
      }
    ],
    "tools": [
      {
        "name": "read",
        "description": "Read a file",
        "input_schema": {
          "type": "object",
          "properties": {
            "path": {
              "type": "string"
            }
          },
          "required": [
            "path"
          ]
        }
      },
      {
        "name": "bash",
        "description": "Run a command",
        "input_schema": {
          "type": "object",
          "properties": {
            "command": {
              "type": "string"
            }
          }
        }
      }
    ],
    "thinking": {
      "type": "adaptive"
    },
    "output_config": {
      "effort": "high"
    },
    "stream": true
  },
  budget_with_tools: {
    "model": "claude-haiku-4-5",
    "max_tokens": 32000,
    "system": [
      {
        "type": "text",
        "text": "You are albedo."
      },
      {
        "type": "text",
        "text": "Use tabs."
      }
    ],
    "messages": [
      {
        "role": "user",
        "content": [
          {
            "type": "text",
            "text": "earlier question"
          }
        ]
      },
      {
        "role": "assistant",
        "content": [
          {
            "type": "text",
            "text": "earlier answer"
          }
        ]
      },
      {
        "role": "user",
        "content": [
          {
            "type": "text",
            "text": "look at this"
          },
          {
            "type": "image",
            "source": {
              "type": "base64",
              "media_type": "image/png",
              "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
            }
          }
        ]
      },
      {
        "role": "assistant",
        "content": [
          {
            "type": "thinking",
            "thinking": "plan",
            "signature": "SIG"
          },
          {
            "type": "text",
            "text": "Reading."
          },
          {
            "type": "tool_use",
            "id": "call_1",
            "name": "read",
            "input": {
              "path": "a.ts"
            }
          },
          {
            "type": "tool_use",
            "id": "call_2",
            "name": "bash",
            "input": {
              "command": "ls"
            }
          }
        ]
      },
      {
        "role": "user",
        "content": [
          {
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": "export {}"
          },
          {
            "type": "tool_result",
            "tool_use_id": "call_2",
            "content": "exit 1",
            "is_error": true
          }
        ]
      }
    ],
    "tools": [
      {
        "name": "read",
        "description": "Read a file",
        "input_schema": {
          "type": "object",
          "properties": {
            "path": {
              "type": "string"
            }
          },
          "required": [
            "path"
          ]
        }
      },
      {
        "name": "bash",
        "description": "Run a command",
        "input_schema": {
          "type": "object",
          "properties": {
            "command": {
              "type": "string"
            }
          }
        }
      }
    ],
    "thinking": {
      "type": "enabled",
      "budget_tokens": 8192
    },
    "stream": true
  },
  history_only: {
    "model": "claude-opus-5-5",
    "max_tokens": 32000,
    "system": [
      {
        "type": "text",
        "text": "You are albedo."
      },
      {
        "type": "text",
        "text": "Use tabs."
      }
    ],
    "messages": [
      {
        "role": "user",
        "content": [
          {
            "type": "text",
            "text": "earlier question"
          }
        ]
      },
      {
        "role": "assistant",
        "content": [
          {
            "type": "text",
            "text": "earlier answer"
          }
        ]
      }
    ],
    "tools": [
      {
        "name": "read",
        "description": "Read a file",
        "input_schema": {
          "type": "object",
          "properties": {
            "path": {
              "type": "string"
            }
          },
          "required": [
            "path"
          ]
        }
      },
      {
        "name": "bash",
        "description": "Run a command",
        "input_schema": {
          "type": "object",
          "properties": {
            "command": {
              "type": "string"
            }
          }
        }
      }
    ],
    "stream": true
  },
} satisfies Record<string, Anthropic.MessageCreateParams>;

export const CHAT_BODIES = {
  live_round: {
    "model": "gpt-4o",
    "messages": [
      {
        "role": "system",
        "content": "You are albedo."
      },
      {
        "role": "system",
        "content": "Use tabs."
      },
      {
        "role": "user",
        "content": "earlier question"
      },
      {
        "role": "assistant",
        "content": "earlier answer"
      },
      {
        "role": "user",
        "content": [
          {
            "type": "text",
            "text": "look at this"
          },
          {
            "type": "image_url",
            "image_url": {
              "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
            }
          }
        ]
      },
      {
        "role": "assistant",
        "content": "Reading.",
        "tool_calls": [
          {
            "id": "call_1",
            "type": "function",
            "function": {
              "name": "read",
              "arguments": "{\"path\":\"a.ts\"}"
            }
          },
          {
            "id": "call_2",
            "type": "function",
            "function": {
              "name": "bash",
              "arguments": "{\"command\":\"ls\"}"
            }
          }
        ]
      },
      {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "export {}"
      },
      {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "Error: exit 1"
      }
    ],
    "tools": [
      {
        "type": "function",
        "function": {
          "name": "read",
          "description": "Read a file",
          "parameters": {
            "type": "object",
            "properties": {
              "path": {
                "type": "string"
              }
            },
            "required": [
              "path"
            ]
          }
        }
      },
      {
        "type": "function",
        "function": {
          "name": "bash",
          "description": "Run a command",
          "parameters": {
            "type": "object",
            "properties": {
              "command": {
                "type": "string"
              }
            }
          }
        }
      }
    ],
    "max_tokens": 32000,
    "stream": true,
    "stream_options": {
      "include_usage": true
    },
    "prompt_cache_key": "session-1"
  },
  reasoning: {
    "model": "gpt-5",
    "messages": [
      {
        "role": "system",
        "content": "You are albedo."
      },
      {
        "role": "system",
        "content": "Use tabs."
      },
      {
        "role": "user",
        "content": "earlier question"
      },
      {
        "role": "assistant",
        "content": "earlier answer"
      }
    ],
    "tools": [
      {
        "type": "function",
        "function": {
          "name": "read",
          "description": "Read a file",
          "parameters": {
            "type": "object",
            "properties": {
              "path": {
                "type": "string"
              }
            },
            "required": [
              "path"
            ]
          }
        }
      },
      {
        "type": "function",
        "function": {
          "name": "bash",
          "description": "Run a command",
          "parameters": {
            "type": "object",
            "properties": {
              "command": {
                "type": "string"
              }
            }
          }
        }
      }
    ],
    "max_completion_tokens": 32000,
    "reasoning_effort": "high",
    "stream": true,
    "stream_options": {
      "include_usage": true
    },
    "prompt_cache_key": "session-1"
  },
} satisfies Record<string, OpenAI.Chat.ChatCompletionCreateParams>;

export const RESPONSES_BODIES = {
  live_round_with_phase: {
    "model": "gpt-5.4",
    "instructions": "You are albedo.",
    "input": [
      {
        "type": "message",
        "role": "system",
        "content": "Use tabs."
      },
      {
        "type": "message",
        "role": "user",
        "content": [
          {
            "type": "input_text",
            "text": "earlier question"
          }
        ]
      },
      {
        "type": "message",
        "role": "assistant",
        "content": [
          {
            "type": "output_text",
            "text": "earlier answer"
          }
        ]
      },
      {
        "type": "message",
        "role": "user",
        "content": [
          {
            "type": "input_text",
            "text": "look at this"
          },
          {
            "type": "input_image",
            "image_url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
            "detail": "auto"
          }
        ]
      },
      {
        "type": "reasoning",
        "encrypted_content": "gAAAAB",
        "summary": [
          {
            "type": "summary_text",
            "text": "plan"
          }
        ],
        "id": "rs_1"
      },
      {
        "type": "message",
        "role": "assistant",
        "content": [
          {
            "type": "output_text",
            "text": "Reading."
          }
        ],
        "phase": "commentary"
      },
      {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read",
        "arguments": "{\"path\":\"a.ts\"}"
      },
      {
        "type": "function_call",
        "call_id": "call_2",
        "name": "bash",
        "arguments": "{\"command\":\"ls\"}"
      },
      {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "export {}"
      },
      {
        "type": "function_call_output",
        "call_id": "call_2",
        "output": "Error: exit 1"
      }
    ],
    "tools": [
      {
        "type": "function",
        "name": "read",
        "description": "Read a file",
        "parameters": {
          "type": "object",
          "properties": {
            "path": {
              "type": "string"
            }
          },
          "required": [
            "path"
          ]
        },
        "strict": false
      },
      {
        "type": "function",
        "name": "bash",
        "description": "Run a command",
        "parameters": {
          "type": "object",
          "properties": {
            "command": {
              "type": "string"
            }
          }
        },
        "strict": false
      }
    ],
    "max_output_tokens": 32000,
    "reasoning": {
      "effort": "high",
      "summary": "auto"
    },
    "store": false,
    "include": [
      "reasoning.encrypted_content"
    ],
    "prompt_cache_key": "session-1",
    "stream": true
  },
  history_only: {
    "model": "gpt-4.1",
    "instructions": "You are albedo.",
    "input": [
      {
        "type": "message",
        "role": "system",
        "content": "Use tabs."
      },
      {
        "type": "message",
        "role": "user",
        "content": [
          {
            "type": "input_text",
            "text": "earlier question"
          }
        ]
      },
      {
        "type": "message",
        "role": "assistant",
        "content": [
          {
            "type": "output_text",
            "text": "earlier answer"
          }
        ]
      }
    ],
    "tools": [
      {
        "type": "function",
        "name": "read",
        "description": "Read a file",
        "parameters": {
          "type": "object",
          "properties": {
            "path": {
              "type": "string"
            }
          },
          "required": [
            "path"
          ]
        },
        "strict": false
      },
      {
        "type": "function",
        "name": "bash",
        "description": "Run a command",
        "parameters": {
          "type": "object",
          "properties": {
            "command": {
              "type": "string"
            }
          }
        },
        "strict": false
      }
    ],
    "max_output_tokens": 32000,
    "store": false,
    "prompt_cache_key": "session-1",
    "stream": true
  },
} satisfies Record<string, ResponsesBody>;
