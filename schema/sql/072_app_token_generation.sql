-- An app token names the generation it was issued in; OperatorRotateAppToken moves the app to the next one, and
-- tokens of earlier generations stop working (issue 25: the console rotates app tokens). 0 is the generation of
-- every token issued before this column existed, whose JWTs carry no generation.
ALTER TABLE apps ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
