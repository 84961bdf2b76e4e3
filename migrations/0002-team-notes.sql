-- Team notes: a note belongs to a space, its author's own (`user:<id>`) or a team's (`team:<tenant id>`),
-- and every statement of the service names the space it reads or changes. `owner` stays the author.
ALTER TABLE notes ADD COLUMN space text;
UPDATE notes SET space = 'user:' || owner;
ALTER TABLE notes ALTER COLUMN space SET NOT NULL;

-- A space's notes newest first, ties by id: the list's order, and the range a cursor starts after.
CREATE INDEX notes_space_created_at_id ON notes (space, created_at DESC, id DESC);
DROP INDEX notes_owner_created_at_id;
