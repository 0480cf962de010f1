;;; treecomplete-eglot.el --- treecomplete through eglot  -*- lexical-binding: t; -*-
;; Emacs 29 has eglot built in; Emacs 28: M-x package-install eglot (or Debian's elpa-eglot).
(require 'eglot)

(defvar treecomplete-command '("treecomplete-ls" "--stdio")
  "The server command: treecomplete-ls, or (PYTHON \"-m\" \"treecomplete\" \"--stdio\").")

(add-to-list 'eglot-server-programs
             `((python-mode python-ts-mode js-mode js-ts-mode typescript-mode typescript-ts-mode tsx-ts-mode
               go-mode go-ts-mode rust-mode rust-ts-mode java-mode java-ts-mode c-mode c-ts-mode c++-mode c++-ts-mode
               csharp-mode csharp-ts-mode ruby-mode ruby-ts-mode php-mode kotlin-mode lua-mode lua-ts-mode sh-mode bash-ts-mode)
               . ,(lambda (&rest _) treecomplete-command)))

;; server settings (README.md, "Settings"), answered to workspace/configuration
(setq-default eglot-workspace-configuration '(:treecomplete (:maxItems 50)))

(provide 'treecomplete-eglot)
;;; treecomplete-eglot.el ends here
