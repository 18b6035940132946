;;; fathom-never-blocks-tests.el --- fathom.el never freezes Emacs  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by test/clients-emacs.test.ts on a repository whose first index takes seconds, through the
;; user's shared daemon (`fathom attach'):
;;   FATHOM_TEST_ROOT=<large repo> FATHOM_TEST_NODE=<node> FATHOM_TEST_MAIN=<bin/fathom.js> \
;;   FATHOM_SOCKET=<socket> emacs --batch -l ert -l fathom.el -l fathom-never-blocks-tests.el \
;;   -f ert-run-tests-batch-and-exit
;; A grep is sent during the first index and keys are typed at once: they must run as commands
;; while the answer is still awaited, the daemon's progress must reach the mode line, the answer
;; must fill the grep buffer when it comes, and a new search must cancel the one still running.

;;; Code:

(require 'ert)
(require 'fathom)
(require 'fathom-test-helpers)

(ert-deftest fathom-the-default-command-is-the-shared-daemon ()
  (should (equal (eval (car (get 'fathom-command 'standard-value))) '("fathom" "attach"))))

(setq fathom-command (list (getenv "FATHOM_TEST_NODE") (getenv "FATHOM_TEST_MAIN") "attach")
      fathom-process-environment (list "FATHOM_LOG=warn"))

(ert-deftest fathom-never-blocks-during-a-first-index ()
  (find-file (expand-file-name "notes.txt" fathom-tests--root))
  (fathom-mode 1)
  (let* ((shown nil)
         (record (lambda ()
                   (let ((text (fathom-mode-line-string)))
                     (unless (string-empty-p text) (push text shown))))))
    (add-hook 'fathom-progress-hook record)
    (unwind-protect
        (progn
          (fathom-grep "handler19999")
          (should (fathom-busy-p 'list))
          ;; Keys typed now run as commands while the answer is still awaited.
          (goto-char (point-min))
          (execute-kbd-macro (kbd "typed SPC while SPC indexing RET"))
          (should (fathom-busy-p 'list))
          (should (string-prefix-p "typed while indexing\n" (buffer-string)))
          (should (member fathom--mode-line mode-line-misc-info))
          (should (fathom-wait 90))
          (should (cl-some (lambda (text)
                             (string-prefix-p (concat " fathom: Indexing " (file-truename fathom-tests--root))
                                              text))
                           shown))
          (should (equal (fathom-tests--locations) '("gen/99/m19999.ts:1:17")))
          (should (string-empty-p (fathom-mode-line-string)))
          ;; A new search cancels the one still running: only the second one's answer shows.
          (fathom-grep "handler1")
          (fathom-grep "handler19998")
          (should (fathom-wait 30))
          (should (equal (fathom-tests--locations) '("gen/98/m19998.ts:1:17")))
          (with-current-buffer "*fathom*"
            (goto-char (point-min))
            (should (looking-at-p "-\\*- fathom grep handler19998 -\\*-"))))
      (remove-hook 'fathom-progress-hook record)
      (set-buffer-modified-p nil))))

(provide 'fathom-never-blocks-tests)
;;; fathom-never-blocks-tests.el ends here
