# The same file under another name (a hard link, a symbolic link, stdout
# appended to it) is refused too: files are compared by device and inode.
t=$(mktemp -d); cp testdata/traces/tiny.ndjson $t/a.ndjson; cd $t; ln a.ndjson hard.ndjson; ln -s a.ndjson soft.ndjson; rp-cat a.ndjson -o hard.ndjson; echo "exit $?"; rp-cat a.ndjson -o soft.ndjson; echo "exit $?"; rp-cat a.ndjson >> a.ndjson; echo "exit $?"; rp-cat - -o a.ndjson < soft.ndjson; echo "exit $?"; cd - >/dev/null; cmp $t/a.ndjson testdata/traces/tiny.ndjson && echo unchanged; ls -A $t; rm -rf $t
