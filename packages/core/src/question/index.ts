export { answerOwnQuestion, answerQuestion, answerTo } from "./answer";
export { QUESTION_ERRORS, questionError } from "./errors";
export { AnswerInput, ASK_USER, ASKING_GROUP, AskUserArguments, asksPerson } from "./schema";
export type { Answered, Answerer } from "./schema";
