// How a tool's permission question reaches a person: as an event a front end answers, once.
// With nobody to ask (headless, or no front end that asks), the answer is "deny".
import type { PermissionAnswer, PermissionRequest } from "../../tools/types.js";
import type { EventHub } from "../turn/events.js";

export function permissionAsker(hub: EventHub, headless: boolean): (req: PermissionRequest) => Promise<PermissionAnswer> {
  return (req) => {
    if (headless || !hub.canAsk()) return Promise.resolve("deny");
    return new Promise((resolve) => {
      let answered = false;
      hub.emit({ type: "state", state: "permission", detail: req.tool });
      hub.emit({
        type: "permission",
        req,
        answer: (a) => {
          // a second answer (two front ends, a double key) must not run the tool twice
          if (answered) return;
          answered = true;
          hub.emit({ type: "state", state: "tool", detail: req.tool });
          resolve(a);
        },
      });
    });
  };
}
