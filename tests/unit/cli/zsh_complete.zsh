# zsh -f zsh_complete.zsh SCRIPT DUMP LINE: the matches zsh's completion system offers for LINE,
# the cursor at its end, one a line (and empty lines: the terminal's). An interactive zsh -f in a
# pseudo-terminal (zsh/zpty) runs compinit (its dump in DUMP), sources SCRIPT, and gets LINE and
# a Tab; compadd is wrapped to print what each call adds, and the shell exits once completion
# is done (comppostfuncs). Used by completion_zsh_test.sh.
zmodload zsh/zpty || exit 2
zpty shell zsh -f -i
zpty -w shell "PROMPT=; autoload -Uz compinit; compinit -u -d ${(q)2}; source ${(q)1}"
# Calls that only ask (-O, -A, -D: fill an array) add nothing: passed through.
zpty -w shell 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a hits; builtin compadd -A hits "$@"; (( $#hits )) && print -l -r -- "<<matches" $hits ">>matches"; builtin compadd "$@"; }'
zpty -w shell "zstyle ':completion:*' list-grouped false; bindkey '^I' complete-word; comppostfuncs=(exit)"
zpty -w shell 'print ready'
local line
while zpty -r shell line; do
  [[ $line == ready* ]] && break
done
zpty -w -n shell "$3"$'\t'
local matches=0
while zpty -r shell line; do
  line=${line//$'\r'/}
  case $line in
  *'<<matches'*) matches=1 ;;
  '>>matches'*) matches=0 ;;
  *) (( matches )) && print -r -- "$line" ;;
  esac
done
exit 0
