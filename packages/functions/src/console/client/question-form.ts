import { element } from "./dom";

/** A module's form (MCP elicitation's requestedSchema): a flat object of primitive fields. */
export type ModuleForm = { type: "object"; properties: Record<string, Field>; required?: string[] };

type Field = {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
  enumNames?: string[];
  oneOf?: Array<{ const: string; title?: string }>;
  items?: { enum?: string[]; anyOf?: Array<{ const: string; title?: string }> };
  format?: string;
  default?: unknown;
};

type Choice = { value: string; label: string };

const choicesOf = (field: Field): Choice[] | undefined =>
  field.oneOf?.map((option) => ({ value: option.const, label: option.title ?? option.const })) ??
  field.enum?.map((value, index) => ({ value, label: field.enumNames?.[index] ?? value }));

const itemChoicesOf = (field: Field): Choice[] | undefined =>
  field.items?.anyOf?.map((option) => ({ value: option.const, label: option.title ?? option.const })) ?? field.items?.enum?.map((value) => ({ value, label: value }));

const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

/** One field of the form as a control, named by its key, with its title, description, default and whether it is required. */
function control(id: string, key: string, field: Field, required: boolean) {
  const label = field.title ?? key;
  const hint = field.description ? element("p", { className: "hint", text: field.description }) : null;
  const choices = choicesOf(field);
  const itemChoices = field.type === "array" ? itemChoicesOf(field) : undefined;
  if (itemChoices) {
    const chosen = new Set(Array.isArray(field.default) ? field.default.map(String) : []);
    return element("fieldset", { "data-field": key, "data-kind": "many" }, [
      element("legend", { text: label }),
      hint,
      ...itemChoices.map((choice, index) =>
        element("div", { className: "choice" }, [
          element("input", { type: "checkbox", id: `${id}-${index}`, value: choice.value, checked: chosen.has(choice.value) }),
          element("label", { for: `${id}-${index}`, text: choice.label }),
        ]),
      ),
    ]);
  }
  if (field.type === "boolean")
    return element("div", { className: "field choice", "data-field": key, "data-kind": "boolean" }, [
      element("input", { type: "checkbox", id, checked: field.default === true }),
      element("label", { for: id, text: label }),
      hint,
    ]);
  const input = choices
    ? element("select", { id, required }, [
        element("option", { value: "", text: "Choose…" }),
        ...choices.map((choice) => element("option", { value: choice.value, text: choice.label, selected: field.default === choice.value })),
      ])
    : element("input", {
        id,
        type: field.type === "number" || field.type === "integer" ? "number" : (INPUT_TYPES[field.format ?? ""] ?? "text"),
        step: field.type === "integer" ? "1" : field.type === "number" ? "any" : undefined,
        value: field.default === undefined ? undefined : String(field.default),
        required,
      });
  const kind = field.type === "number" || field.type === "integer" ? "number" : "text";
  return element("div", { className: "field", "data-field": key, "data-kind": kind }, [element("label", { for: id, text: label }), hint, input]);
}

/** The module's form as the operator fills it in, its fields in the module's order. */
export const formFields = (callId: string, form: ModuleForm, order: string[] = []) => {
  const keys = [...order.filter((key) => key in form.properties), ...Object.keys(form.properties).filter((key) => !order.includes(key))];
  return element(
    "div",
    { className: "module-form" },
    keys.map((key, index) => control(`form-${callId}-${index}`, key, form.properties[key]!, form.required?.includes(key) ?? false)),
  );
};

/** What the operator filled in, a value per field (blank optional fields left out), or a sentence saying what is missing. */
export function formContent(card: HTMLElement, form: ModuleForm): Record<string, unknown> | { problem: string } {
  const content: Record<string, unknown> = {};
  for (const wrapper of card.querySelectorAll<HTMLElement>("[data-field]")) {
    const key = wrapper.dataset.field!;
    const kind = wrapper.dataset.kind;
    if (kind === "many") content[key] = Array.from(wrapper.querySelectorAll<HTMLInputElement>("input:checked")).map((input) => input.value);
    else if (kind === "boolean") content[key] = wrapper.querySelector<HTMLInputElement>("input")!.checked;
    else {
      const value = wrapper.querySelector<HTMLInputElement | HTMLSelectElement>("input, select")!.value.trim();
      if (value === "") {
        if (form.required?.includes(key)) return { problem: `Fill in "${form.properties[key]?.title ?? key}", or decline the question.` };
        continue;
      }
      content[key] = kind === "number" ? Number(value) : value;
    }
  }
  return { content };
}
