;;; treecomplete-eglot.el --- treecomplete through eglot  -*- lexical-binding: t; -*-
;; Emacs 29 has eglot built in; Emacs 28: M-x package-install eglot (or Debian's elpa-eglot).
(require 'eglot)

(defvar treecomplete-command '("treecomplete-ls" "--stdio")
  "The server command: treecomplete-ls, or (PYTHON \"-m\" \"treecomplete\" \"--stdio\").")

(add-to-list 'eglot-server-programs
             `((python-mode python-ts-mode js-mode js-ts-mode) . ,(lambda (&rest _) treecomplete-command)))

;; server settings (README.md, "Settings"), answered to workspace/configuration
(setq-default eglot-workspace-configuration '(:treecomplete (:maxItems 50)))

(provide 'treecomplete-eglot)
;;; treecomplete-eglot.el ends here
