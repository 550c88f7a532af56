-- An app token names the generation it was issued in; OperatorRotateAppToken moves the app to the next one, and
-- tokens of earlier generations stop working (so the operator's console can rotate an app's token). 0 is the
-- generation of every token issued before this column existed, whose JWTs carry no generation.
ALTER TABLE apps ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
