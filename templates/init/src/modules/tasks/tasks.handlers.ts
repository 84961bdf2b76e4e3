// Handlers of the Task routes; in memory to start with.
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/errors.js';
import type { Handlers } from '../../../generated/routes.js';
import type { Task } from '../../../generated/types.js';

export function createTaskHandlers(): Pick<Handlers, 'listTasks' | 'createTask' | 'getTask'> {
  const tasks = new Map<string, Task>();
  return {
    listTasks: ({ query }) =>
      [...tasks.values()].filter((task) => query.done === undefined || task.done === query.done),
    createTask: ({ body }) => {
      const task: Task = { id: randomUUID(), title: body.title, done: false };
      tasks.set(task.id, task);
      return task;
    },
    getTask: ({ params }) => {
      const task = tasks.get(params.id);
      if (!task) throw errors.TASK_NOT_FOUND();
      return task;
    },
  };
}
