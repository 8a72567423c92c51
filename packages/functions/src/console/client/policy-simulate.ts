import { api, ApiError, failed } from "./api";
import { code, consoleHref, element, plural, setMessage, spaced, timeElement } from "./dom";
import type { Child } from "./dom";
import { effectBadge, problemText } from "./policy-text";
import type { Flip, PolicyInput, PolicyProblem, Simulation } from "./types";

export type SimulationInput = { put?: Array<PolicyInput & { id: string }>; delete?: string[] };

const policyNames = (ids: string[]) => (ids.length ? spaced(ids.map(code)) : ["none"]);

function flipItem(flip: Flip) {
  return element("li", { "data-call": flip.callId }, [
    element("p", { className: "flip-head" }, [code(flip.tool), " ", effectBadge(flip.from.effect), " → ", effectBadge(flip.to.effect), " ", timeElement(flip.startedAt)]),
    element("p", {}, ["Now decided by: ", ...policyNames(flip.from.policies), "; with the draft: ", ...policyNames(flip.to.policies), "."]),
    element("p", {}, [
      "Call ",
      code(flip.callId),
      " of agent ",
      element("a", { href: consoleHref("/agents/" + encodeURIComponent(flip.agentId)), title: "The agent's page lists its calls" }, [code(flip.agentId)]),
    ]),
  ]);
}

function summary(simulation: Simulation) {
  const { replayed, notReplayed, flips } = simulation;
  const read = `Replayed ${plural(replayed, "recent call")}` + (notReplayed ? ` (${notReplayed} not replayed: arguments cut short, tool or agent gone, or refused before any policy)` : "") + ". ";
  return read + (flips.length ? `${plural(flips.length, "call")} would be decided differently:` : "None of them would be decided differently.");
}

function showResult(target: HTMLElement, simulation: Simulation, note: string | undefined) {
  const shown: Child[] = [
    note ? element("p", { className: "message message-info", text: note }) : null,
    element("p", { "data-summary": "", text: summary(simulation) }),
    simulation.byPolicy.length
      ? element("ul", { className: "by-policy", "aria-label": "Changed calls by policy" }, simulation.byPolicy.map((count) => element("li", { "data-policy": count.policyId }, [code(count.policyId), `: ${plural(count.flips, "call")}`])))
      : null,
    simulation.flips.length ? element("ul", { className: "flip-list", "aria-label": "Calls decided differently" }, simulation.flips.map(flipItem)) : null,
  ];
  target.replaceChildren(element("div", {}, shown));
}

const problemsOf = (error: ApiError) => (Array.isArray(error.data?.problems) ? (error.data.problems as PolicyProblem[]) : []);

/** Replays the newest recorded calls against the policies with the draft applied (nothing is saved) and shows the calls it would decide differently. */
export async function runSimulation(target: HTMLElement, draft: SimulationInput, note?: string) {
  setMessage(target, "Replaying the newest recorded calls…");
  try {
    showResult(target, await api<Simulation>("POST", "policies/simulate", { body: draft }), note);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const problems = problemsOf(error);
      target.replaceChildren(
        element("div", { className: "message message-error" }, [
          element("p", { text: "Not simulated. " + (problems.length ? "The draft is not valid:" : error.message) }),
          problems.length ? element("ul", { className: "problem-list" }, problems.map((problem) => element("li", { text: problemText(problem) }))) : null,
        ]),
      );
    } else failed(target, error);
  }
}
