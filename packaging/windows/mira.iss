; Inno Setup 6 script for Mira Desktop on Windows: installs the PyInstaller one-folder
; bundle per user (no administrator rights needed), with a Start-menu entry and an
; optional desktop shortcut. Not built in CI. On a Windows machine, from the checkout:
;
;   py -3.11 -m venv .venv && .venv\Scripts\pip install -e ".[package]"
;   .venv\Scripts\python packaging\build.py pyinstaller
;   "%ProgramFiles(x86)%\Inno Setup 6\ISCC.exe" /DMyAppVersion=0.1.0 packaging\windows\mira.iss
;
; -> dist\mira-desktop-<version>-windows-x64-setup.exe
; Relative paths below are relative to this file.

#ifndef MyAppVersion
  #define MyAppVersion "0.1.0"
#endif
#define MyAppName "Mira Desktop"
#define MyAppId "io.mira.Desktop"
#define MyAppExeName "mira-desktop.exe"
#define BundleDir "..\..\dist\mira-desktop"

[Setup]
; Never change AppId: Windows finds the installed version (upgrades, uninstall) by it.
AppId={{CDDC7EBB-4152-49EF-8855-8BA2732BFB34}
AppName={#MyAppName}
AppVersion={#MyAppVersion}
AppVerName={#MyAppName} {#MyAppVersion}
AppPublisher=The Mira Desktop team
DefaultDirName={autopf}\{#MyAppName}
DefaultGroupName={#MyAppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
LicenseFile=..\..\LICENSE
SetupIconFile=..\..\resources\icons\mira.ico
UninstallDisplayIcon={app}\{#MyAppExeName}
OutputDir=..\..\dist
OutputBaseFilename=mira-desktop-{#MyAppVersion}-windows-x64-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; a running Mira holds files in {app}: ask to close it before upgrading
CloseApplications=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"
; Simplified Chinese is an unofficial Inno Setup translation: add ChineseSimplified.isl
; to the compiler's Languages folder and uncomment.
; Name: "chinesesimplified"; MessagesFile: "compiler:Languages\ChineseSimplified.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#MyAppName}"; Filename: "{app}\{#MyAppExeName}"; AppUserModelID: "{#MyAppId}"
Name: "{autodesktop}\{#MyAppName}"; Filename: "{app}\{#MyAppExeName}"; Tasks: desktopicon; AppUserModelID: "{#MyAppId}"

[Run]
Filename: "{app}\{#MyAppExeName}"; Description: "{cm:LaunchProgram,{#MyAppName}}"; Flags: nowait postinstall skipifsilent

; The user's data folder (%LOCALAPPDATA%\mira-desktop) is left in place on uninstall.
