// The console's script, bundled by build.ts into app.js. Pages hold no data: each loads it from the API
// with the admin token the operator signs in with.
import { api } from "./api";
import { byId, inputById } from "./dom";
import { loadAgent, wireAgentPage } from "./agent";
import { loadAgents, wireAgentsPage } from "./agents";
import { loadApprovals, refreshCount, wireApprovalsPage } from "./approvals";
import { loadQuestions, refreshQuestionCount, wireQuestionsPage } from "./questions";
import { loadAnswerTokens, wireAnswerTokens } from "./answer-tokens";
import { loadDepartments } from "./departments";
import { loadGroups, wireGroupsPage } from "./groups";
import { loadModules } from "./modules";
import { loadPolicies, wirePoliciesPage } from "./policies";
import { loadRole, wireRolePage } from "./role";
import { loadRoles, wireRolesPage } from "./roles";
import { keepToken, endSession, storedToken, takeNotice } from "./session";
import { loadTool, loadTools, wireToolPage, wireToolsPage } from "./tools";

type PageKind = "roles" | "role" | "groups" | "tools" | "tool" | "policies" | "modules" | "agents" | "agent" | "departments" | "approvals" | "questions";

const PAGES: Record<PageKind, { wire?: () => void; load: () => Promise<unknown> }> = {
  roles: { wire: wireRolesPage, load: loadRoles },
  role: { wire: wireRolePage, load: loadRole },
  groups: { wire: wireGroupsPage, load: loadGroups },
  tools: { wire: wireToolsPage, load: loadTools },
  tool: { wire: wireToolPage, load: loadTool },
  policies: { wire: wirePoliciesPage, load: loadPolicies },
  modules: { load: loadModules },
  agents: { wire: wireAgentsPage, load: loadAgents },
  agent: { wire: wireAgentPage, load: loadAgent },
  departments: { load: loadDepartments },
  approvals: { wire: wireApprovalsPage, load: loadApprovals },
  questions: {
    wire: () => {
      wireQuestionsPage();
      wireAnswerTokens();
    },
    load: () => Promise.all([loadQuestions(), loadAnswerTokens()]),
  },
};

const COUNT_REFRESH_MS = 15_000;

function showSignIn(notice: string | null) {
  byId("page").hidden = true;
  byId("nav").hidden = true;
  byId("sign-in").hidden = false;
  byId("sign-in-notice").textContent = notice || "";
  inputById("admin-token").focus();
}

async function enter(page: (typeof PAGES)[PageKind], moveFocus: boolean) {
  byId("sign-in").hidden = true;
  byId("nav").hidden = false;
  byId("page").hidden = false;
  if (moveFocus) byId("main").focus();
  // Each queue's page keeps its own count; the other pages refresh both counts in the navigation.
  for (const [page, refresh] of [["approvals", refreshCount], ["questions", refreshQuestionCount]] as const) {
    if (document.body.dataset.page === page) continue;
    void refresh();
    window.setInterval(() => document.hidden || void refresh(), COUNT_REFRESH_MS);
  }
  const region = byId("page");
  region.setAttribute("aria-busy", "true");
  try {
    await page.load();
  } finally {
    region.removeAttribute("aria-busy");
  }
}

function wireSignIn(page: (typeof PAGES)[PageKind]) {
  byId<HTMLFormElement>("sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = inputById("admin-token");
    const problem = byId("sign-in-error");
    const button = (event.currentTarget as HTMLFormElement).querySelector<HTMLButtonElement>("button[type=submit]")!;
    const token = input.value.trim();
    problem.textContent = "";
    byId("sign-in-notice").textContent = "";
    if (!token) {
      problem.textContent = "Enter the admin token.";
      input.focus();
      return;
    }
    button.disabled = true;
    try {
      await api("GET", "roles", { token });
    } catch (error) {
      problem.textContent = "Sign-in failed. " + (error instanceof Error ? error.message : "");
      input.select();
      input.focus();
      return;
    } finally {
      button.disabled = false;
    }
    keepToken(token);
    input.value = "";
    await enter(page, true);
  });
  byId("sign-out").addEventListener("click", () => endSession("You are signed out."));
}

function start() {
  const page = PAGES[document.body.dataset.page as PageKind];
  if (!page) {
    byId("page").hidden = false;
    return;
  }
  page.wire?.();
  wireSignIn(page);
  const notice = takeNotice();
  if (storedToken()) void enter(page, false);
  else showSignIn(notice);
}

start();
