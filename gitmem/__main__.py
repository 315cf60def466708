from .cli.launch import main

main()
