;;; fathom-tests.el --- ERT tests of fathom.el against the real daemon  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by test/clients-emacs.test.ts:
;;   FATHOM_TEST_ROOT=<fixture repo> FATHOM_TEST_NODE=<node> FATHOM_TEST_MAIN=<bin/fathom.js> \
;;   emacs --batch -l ert -l fathom.el -l fathom-tests.el -f ert-run-tests-batch-and-exit
;; The fixture has src/util.ts (greet, "Hello World") and src/app.ts (imports and calls it).

;;; Code:

(require 'ert)
(require 'fathom)
(require 'fathom-test-helpers)


(setq fathom-command (list (getenv "FATHOM_TEST_NODE") (getenv "FATHOM_TEST_MAIN") "serve" "--stdio")
      fathom-process-environment (list "FATHOM_LOG=warn")
      fathom-echo-progress nil)

(defmacro fathom-tests--answered (&rest body)
  "Run BODY (commands, which return at once) and wait for their answers."
  `(progn ,@body (should (fathom-wait 20))))

(defun fathom-tests--visit (relative)
  "Visit RELATIVE in the fixture with `fathom-mode' on."
  (find-file (expand-file-name relative fathom-tests--root))
  (fathom-mode 1))

(ert-deftest fathom-grep-fills-a-grep-buffer ()
  (fathom-tests--visit "src/app.ts")
  (fathom-tests--answered (fathom-grep "greet\\("))
  (should (equal (fathom-tests--locations) '("src/app.ts:2:24" "src/util.ts:1:17"))))

(ert-deftest fathom-an-unsaved-buffer-is-searched ()
  (fathom-tests--visit "src/app.ts")
  (unwind-protect
      (progn
        (goto-char (point-max))
        (insert "export const typedNotSaved = greet(\"later\");\n")
        (fathom-tests--answered (fathom-grep "typedNotSaved"))
        (should (equal (fathom-tests--locations) '("src/app.ts:4:14")))
        (should (buffer-modified-p))
        (should-not (string-match-p "typedNotSaved"
                                    (with-temp-buffer
                                      (insert-file-contents (expand-file-name "src/app.ts" fathom-tests--root))
                                      (buffer-string))))
        ;; Structural search sees it too.
        (fathom-tests--answered (fathom-structural-search "greet($A)"))
        (should (equal (fathom-tests--locations) '("src/app.ts:2:24" "src/app.ts:4:30"))))
    ;; Back to the disk's text (the daemon is told), for the other tests.
    (revert-buffer t t)))

(ert-deftest fathom-code-search-ranks-words-and-finds-identifiers ()
  (fathom-tests--visit "src/app.ts")
  ;; Words: the chunk that holds them, at its line with the most of them.
  (fathom-tests--answered (fathom-code-search "hello world"))
  (should (equal (fathom-tests--locations) '("src/util.ts:2:1")))
  ;; An identifier: its definition, then where it is written.
  (fathom-tests--answered (fathom-code-search "greet"))
  (should (equal (fathom-tests--locations) '("src/app.ts:1:10" "src/app.ts:2:24" "src/util.ts:1:1"))))

(ert-deftest fathom-xref-definitions-and-references ()
  (fathom-tests--visit "src/app.ts")
  (goto-char (point-min))
  (forward-line 1)
  (search-forward "greet")
  (backward-char 2)
  (let* ((identifier (xref-backend-identifier-at-point 'fathom))
         (definitions (xref-backend-definitions 'fathom identifier))
         (references (xref-backend-references 'fathom identifier)))
    (should (equal (mapcar (lambda (item)
                             (let ((location (xref-item-location item)))
                               (format "%s:%d" (file-relative-name (xref-file-location-file location) fathom-tests--root)
                                       (xref-file-location-line location))))
                           definitions)
                   '("src/util.ts:1")))
    (should (>= (length references) 2))))

(ert-deftest fathom-status-answers-the-workspace ()
  (fathom-tests--visit "src/app.ts")
  (let (result)
    (fathom-tests--answered (fathom-status (lambda (answer) (setq result answer))))
    (should (equal (plist-get (aref (plist-get result :workspaces) 0) :root)
                   (directory-file-name (file-truename fathom-tests--root))))))

(provide 'fathom-tests)
;;; fathom-tests.el ends here
