-- The reference service's notes. Each belongs to the user who wrote it (`owner`, the user's id): the
-- service reads and changes a note only together with its owner.
CREATE TABLE notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner text NOT NULL,
  title text NOT NULL,
  body text,
  -- Set by the service, in whole milliseconds: the API's createdAt and its list cursors hold milliseconds,
  -- so a database default (microseconds) would make a cursor land between two instants.
  created_at timestamptz NOT NULL
);

-- A user's notes newest first, ties by id: the list's order, and the range a cursor starts after.
CREATE INDEX notes_owner_created_at_id ON notes (owner, created_at DESC, id DESC);
